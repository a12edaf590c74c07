"""StrictCharField: a string as the OpenAPI document describes it (type, maxLength before trimming, the
not-blank `pattern` agreeing with what the field accepts)."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import serializers

from common.fields import NOT_BLANK, StrictCharField


class Form(serializers.Serializer):
    text = StrictCharField(max_length=5)
    optional = StrictCharField(max_length=5, required=False, allow_blank=True, default="")


@pytest.mark.parametrize("value", [0, 1.5, True, None, ["a"], {"a": 1}])
def test_anything_but_a_string_is_refused(value):
    form = Form(data={"text": value})
    assert not form.is_valid() and "text" in form.errors


def test_max_length_counts_what_was_sent():
    assert not Form(data={"text": "\x1fabcde"}).is_valid()  # six sent, five after strip()
    assert Form(data={"text": " abc "}).is_valid()


@given(st.text(alphabet=st.sampled_from(" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u2003\ufeff\x00a가"), max_size=6))
def test_the_documented_pattern_says_what_the_field_accepts(text):
    if len(text) > 5:
        return
    accepted = Form(data={"text": text}).is_valid()
    assert accepted == (re.search(NOT_BLANK, text) is not None) == (bool(text.strip()) and "\x00" not in text)

"""StrictCharField: a string as the OpenAPI document describes it (type, maxLength before trimming, the
not-blank `pattern` agreeing with what the field accepts). StrictIntegerField: a JSON integer and nothing else."""

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import serializers

from common.fields import NOT_BLANK, StrictCharField, StrictIntegerField


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


class Count(serializers.Serializer):
    n = StrictIntegerField(min_value=0, max_value=2**63 - 1)


@pytest.mark.parametrize("value", [2.0, 2.5, 1e3, float("inf"), True, False, "2", "2.0", None, [2], 2**63])
def test_the_integer_field_refuses_anything_but_a_json_integer(value):
    form = Count(data={"n": value})
    assert not form.is_valid() and "n" in form.errors


@pytest.mark.parametrize("text, value", [('{"n": 2}', 2), ('{"n": 0}', 0), ('{"n": 9223372036854775807}', 2**63 - 1)])
def test_the_integer_field_takes_integers_as_json_writes_them(text, value):
    form = Count(data=json.loads(text))
    assert form.is_valid() and form.validated_data["n"] == value


def test_an_integral_float_in_json_is_a_float_and_refused():
    form = Count(data=json.loads('{"n": 2.0}'))
    assert not form.is_valid() and form.errors["n"] == ["정수여야 합니다(소수점 없이, 예: 2)."]

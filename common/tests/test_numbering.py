"""Public numbers: one canonical form per id, as format_number writes it. Pure."""

import re

import pytest

from common.numbering import format_number, number_pattern, parse_canonical_number, parse_number


@pytest.mark.parametrize("pk", [1, 12, 99_999, 100_000, 123_456, 10**12 - 1])
def test_the_pattern_takes_exactly_what_format_number_writes(pk):
    number = format_number("A", pk)
    assert re.fullmatch(number_pattern("A"), number) and parse_canonical_number("A", number) == pk


@pytest.mark.parametrize(
    "value",
    [
        "A2",
        "2",
        "A0002",
        "A000012",
        "a00012",
        " A00012",
        "A00012 ",
        "A00000",
        "T00012",
        "A１２３４５",
        "A" + "9" * 13,
        12,
    ],
)
def test_other_forms_of_a_number_are_not_canonical(value):
    assert parse_canonical_number("A", value) is None
    # A00000 has the form but names nothing (ids start at 1): the URL resolves, the lookup answers 404.
    assert value == "A00000" or not re.fullmatch(number_pattern("A"), str(value), re.ASCII)


def test_the_lenient_parser_for_staff_input_is_unchanged():
    assert parse_number("A", "a00012") == parse_number("A", " A12 ") == parse_number("A", 12) == 12

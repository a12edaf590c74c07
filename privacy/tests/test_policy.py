from datetime import date, datetime

import pytest

from common.clock import SEOUL
from privacy import policy


@pytest.mark.parametrize(
    ("configured", "days"),
    [(None, 730), (0, 730), (730, 730), (1095, 1095), (30, 365)],  # never under the standard's one year
)
def test_retention_is_two_years_by_default_and_never_under_one(configured, days):
    assert policy.retention_days(configured) == days


@pytest.mark.parametrize("text", ["2026-13", "2026-1", "26-11", "2026/11", "", "2026-11-01"])
def test_month_must_be_year_dash_month(text):
    with pytest.raises(ValueError):
        policy.parse_month(text)


def test_month_bounds_are_seoul_midnights_across_a_year_end():
    assert policy.month_bounds(policy.parse_month("2026-12"), SEOUL) == (
        datetime(2026, 12, 1, tzinfo=SEOUL),
        datetime(2027, 1, 1, tzinfo=SEOUL),
    )
    assert policy.parse_month("2026-11") == date(2026, 11, 1)


@pytest.mark.parametrize(
    ("counts", "unusual"),
    [
        ({}, set()),
        ({"a": 100, "b": 110, "c": 900}, {"c"}),  # far above the median and above the floor
        ({"a": 10, "b": 11, "c": 150}, set()),  # far above the median, but a quiet month
        ({"a": 300, "b": 320, "c": 600}, set()),  # busy, but not three times the median
        ({"solo": 5000}, set()),  # alone: no one to compare with
    ],
)
def test_unusual_operators_are_far_above_the_median(counts, unusual):
    assert policy.unusual_operators(counts) == unusual


def test_export_reason_is_trimmed_and_bounded():
    assert policy.export_reason_clean("  고객   열람 요구 ") == "고객 열람 요구"
    assert policy.export_reason_clean(None) == ""
    assert len(policy.export_reason_clean("가" * 900)) == policy.EXPORT_REASON_MAX

"""Nearest-rank percentiles and rates: table-driven, no database."""

from datetime import UTC, datetime

import pytest

from metrics.stats import duration_summary, mean, median, percentile, rate, seconds_between


@pytest.mark.parametrize(
    "values, p, expected",
    [
        ([], 50, None),  # nothing measured: no value, not 0
        ([7], 0, 7),
        ([7], 50, 7),
        ([7], 100, 7),
        ([1, 2], 50, 1),  # rank ceil(1.0)=1: the lower middle value, never an average
        ([1, 2], 51, 2),  # rank ceil(1.02)=2
        ([1, 2], 90, 2),
        ([3, 1, 2], 50, 2),  # order of input does not matter
        ([1, 2, 3, 4], 50, 2),
        ([1, 2, 3, 4], 75, 3),
        ([1, 2, 3, 4], 90, 4),  # rank ceil(3.6)=4
        (list(range(1, 11)), 90, 9),  # rank 9 exactly
        (list(range(1, 11)), 91, 10),
        (list(range(1, 31)), 90, 27),  # 0.9·30 is 27.000000000000004 in floats: still rank 27
        (list(range(1, 101)), 50, 50),
        (list(range(1, 101)), 99, 99),
        (list(range(1, 101)), 0, 1),
        ([2.5, 1.25, 6.0], 90, 6.0),
        ([5, 5, 5, 1], 50, 5),  # rank 2 of [1, 5, 5, 5]
    ],
)
def test_nearest_rank_percentile(values, p, expected):
    assert percentile(values, p) == expected


@pytest.mark.parametrize("p", [-1, 100.5])
def test_percentile_outside_0_to_100_is_an_error(p):
    with pytest.raises(ValueError):
        percentile([1, 2], p)


@pytest.mark.parametrize("values, expected", [([], None), ([4, 1, 9], 4), ([4, 1, 9, 10], 4)])
def test_median_is_the_50th_percentile(values, expected):
    assert median(values) == expected


@pytest.mark.parametrize(
    "seconds, expected",
    [
        ([], {"n": 0, "median": None, "p90": None}),
        ([1.23456], {"n": 1, "median": 1.235, "p90": 1.235}),  # milliseconds
        ([10, 1, 2, 3], {"n": 4, "median": 2, "p90": 10}),
    ],
)
def test_duration_summary(seconds, expected):
    assert duration_summary(seconds) == expected


@pytest.mark.parametrize(
    "numerator, denominator, expected",
    [(0, 0, None), (3, 0, None), (0, 5, 0.0), (2, 3, 0.6667), (1, 3, 0.3333), (3, 5, 0.6), (5, 5, 1.0)],
)
def test_rate_rounds_to_four_places_and_is_none_without_a_denominator(numerator, denominator, expected):
    assert rate(numerator, denominator) == expected


def test_mean():
    assert mean(0.8, 3) == 0.2667
    assert mean(0.0, 0) is None


@pytest.mark.parametrize(
    "start, end, expected",
    [
        (datetime(2026, 7, 26, 1, tzinfo=UTC), datetime(2026, 7, 26, 1, 0, 2, 500000, tzinfo=UTC), 2.5),
        (None, datetime(2026, 7, 26, tzinfo=UTC), None),
        (datetime(2026, 7, 26, tzinfo=UTC), None, None),
    ],
)
def test_seconds_between(start, end, expected):
    assert seconds_between(start, end) == expected

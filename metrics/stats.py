"""Pure statistics for the metrics report: plain numbers in, plain numbers out. No ORM, no settings.

Percentiles use the **nearest-rank** method: the p-th percentile of n sorted values is the value at
1-based rank ceil(p/100 · n) (rank 1 for p = 0). It always returns an observed value, never an
interpolation, so "p90 = 3.0 s" means some run really took 3.0 s and at least 90 % took no longer.
The median is the 50th percentile by the same rule: for an even count it is the lower middle value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from fractions import Fraction

SECONDS_DIGITS = 3  # durations are reported in seconds, to the millisecond
RATE_DIGITS = 4  # rates and shares are fractions of 1, e.g. 0.6667


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile of `values` (any order); None when there are no values."""
    if not 0 <= p <= 100:
        raise ValueError(f"percentile must be within 0..100, got {p}")
    if not values:
        return None
    ordered = sorted(values)
    # Exact arithmetic: 0.9 * 30 in floats is 27.000000000000004, which would round the rank up.
    rank = max(1, math.ceil(Fraction(str(p)) * len(ordered) / 100))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float | None:
    return percentile(values, 50)


def duration_summary(seconds: Sequence[float]) -> dict[str, float | int | None]:
    """{"n", "median", "p90"} of durations in seconds, rounded to the millisecond."""
    return {
        "n": len(seconds),
        "median": _round(median(seconds), SECONDS_DIGITS),
        "p90": _round(percentile(seconds, 90), SECONDS_DIGITS),
    }


def rate(numerator: float, denominator: float) -> float | None:
    """numerator / denominator rounded to 4 places; None (not 0) when there is nothing to divide by."""
    if not denominator:
        return None
    return round(numerator / denominator, RATE_DIGITS)


def mean(total: float, count: int) -> float | None:
    """total / count rounded to 4 places; None when there is nothing to average."""
    return rate(total, count)


def seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return (end - start).total_seconds()


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)

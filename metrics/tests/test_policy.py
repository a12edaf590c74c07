"""Seoul days and report days: table-driven, no database."""

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from metrics.policy import day_bounds, default_range, local_day, report_days

SEOUL = ZoneInfo("Asia/Seoul")
D = date.fromisoformat
KST_0726, KST_0727 = datetime(2026, 7, 25, 15, tzinfo=UTC), datetime(2026, 7, 26, 15, tzinfo=UTC)


@pytest.mark.parametrize(
    "since, until, expected",
    [
        (None, None, (None, None)),
        (D("2026-07-26"), None, (datetime(2026, 7, 25, 15, tzinfo=UTC), None)),  # KST midnight = 15:00 UTC
        (None, D("2026-07-26"), (None, datetime(2026, 7, 26, 15, tzinfo=UTC))),  # end is exclusive: next midnight
        (D("2026-07-26"), D("2026-07-26"), (KST_0726, KST_0727)),
    ],
)  # fmt: skip
def test_day_bounds_are_seoul_midnights_with_until_inclusive(since, until, expected):
    assert day_bounds(since, until, SEOUL) == expected


def test_day_bounds_refuse_a_reversed_range():
    with pytest.raises(ValueError):
        day_bounds(D("2026-07-27"), D("2026-07-26"), SEOUL)


@pytest.mark.parametrize(
    "moment, expected",
    [
        (datetime(2026, 7, 26, 14, 59, 59, tzinfo=UTC), D("2026-07-26")),
        (datetime(2026, 7, 26, 15, 0, 0, tzinfo=UTC), D("2026-07-27")),  # 00:00 KST
        (datetime(2026, 7, 27, 0, 30, tzinfo=SEOUL), D("2026-07-27")),
    ],
)
def test_local_day_is_the_seoul_calendar_day(moment, expected):
    assert local_day(moment, SEOUL) == expected


@pytest.mark.parametrize(
    "since, until, seen, expected",
    [
        (None, None, [], []),
        (None, None, [D("2026-07-27"), D("2026-07-25")], ["2026-07-25", "2026-07-26", "2026-07-27"]),  # gap filled
        (D("2026-07-24"), None, [D("2026-07-25")], ["2026-07-24", "2026-07-25"]),
        (None, D("2026-07-26"), [D("2026-07-25")], ["2026-07-25", "2026-07-26"]),
        (D("2026-07-24"), D("2026-07-25"), [], ["2026-07-24", "2026-07-25"]),  # empty days still listed
        (D("2026-07-24"), None, [], ["2026-07-24"]),
        (None, D("2026-07-24"), [], ["2026-07-24"]),
    ],
)
def test_report_days_cover_the_range_continuously(since, until, seen, expected):
    assert [d.isoformat() for d in report_days(since, until, seen)] == expected


@pytest.mark.parametrize(
    ("last_activity", "today", "expected"),
    [
        # No activity: the two weeks up to today.
        (None, date(2026, 7, 27), (date(2026, 7, 14), date(2026, 7, 27))),
        # Everything before today (the seeded demo world): still up to today.
        (date(2026, 7, 26), date(2026, 7, 27), (date(2026, 7, 14), date(2026, 7, 27))),
        # Chats stamped by the machine clock months after CS_TODAY: up to the last day with activity.
        (date(2026, 12, 1), date(2026, 7, 27), (date(2026, 11, 18), date(2026, 12, 1))),
        # A month boundary and a leap day.
        (date(2028, 3, 1), date(2028, 2, 20), (date(2028, 2, 17), date(2028, 3, 1))),
    ],
)
def test_default_range_is_two_weeks_up_to_the_later_of_today_and_the_last_activity(last_activity, today, expected):
    assert default_range(last_activity, today) == expected

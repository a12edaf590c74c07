"""Business-hours arithmetic in Asia/Seoul: weekends, a public holiday, moments outside the hours. No DB."""

from __future__ import annotations

from datetime import date, datetime, time

import pytest

from common.business_hours import (
    BusinessCalendar,
    after_hours_notice,
    business_add,
    business_calendar,
    business_day_after,
    business_seconds_between,
    hours_phrase,
    is_business_time,
    next_opening,
)
from common.clock import SEOUL, resolve_now
from common.tests.support import CAL, H, at


@pytest.mark.parametrize(
    "start, hours, due",
    [
        ("2026-08-13T10:00", 2, "2026-08-13T12:00"),  # inside one day
        ("2026-08-13T17:00", 2, "2026-08-14T10:00"),  # over the night
        ("2026-08-14T17:00", 4, "2026-08-18T12:00"),  # Friday → weekend → Monday holiday → Tuesday
        ("2026-08-15T11:00", 1, "2026-08-18T10:00"),  # asked on Saturday: the clock starts Tuesday 09:00
        ("2026-08-13T20:00", 0, "2026-08-14T09:00"),  # zero from a closed moment is the next opening
        ("2026-08-14T09:00", 27, "2026-08-19T18:00"),  # three business days: Fri, Tue, Wed (Mon is a holiday)
    ],
)
def test_business_add_skips_nights_weekends_and_holidays(start, hours, due):
    assert business_add(at(start), hours * H, CAL) == at(due)


@pytest.mark.parametrize(
    "start, end, hours",
    [
        ("2026-08-14T17:00", "2026-08-18T12:00", 4),
        ("2026-08-14T18:30", "2026-08-17T23:00", 0),  # nothing but a weekend and a holiday
        ("2026-08-18T12:00", "2026-08-14T17:00", -4),  # signed: time past a due moment
        ("2026-08-13T08:00", "2026-08-13T09:30", 0.5),
    ],
)
def test_business_seconds_between_counts_only_open_hours(start, end, hours):
    assert business_seconds_between(at(start), at(end), CAL) == hours * H


@pytest.mark.parametrize(
    "moment, open_now, opening",
    [
        ("2026-08-14T10:00", True, "2026-08-14T10:00"),
        ("2026-08-14T18:00", False, "2026-08-18T09:00"),  # closing time is closed
        ("2026-08-17T10:00", False, "2026-08-18T09:00"),  # a holiday on a weekday
        ("2026-08-18T08:59", False, "2026-08-18T09:00"),
    ],
)
def test_is_business_time_and_next_opening(moment, open_now, opening):
    assert is_business_time(at(moment), CAL) is open_now
    assert next_opening(at(moment), CAL) == at(opening)


@pytest.mark.parametrize(
    "day, n, expected",
    [
        (date(2026, 8, 13), 3, date(2026, 8, 19)),  # Thu → Fri, (weekend, holiday), Tue, Wed
        (date(2026, 8, 15), 3, date(2026, 8, 20)),  # from a Saturday
        (date(2026, 8, 10), 3, date(2026, 8, 13)),  # an ordinary week
    ],
)
def test_business_day_after_does_not_count_the_day_itself(day, n, expected):
    assert business_day_after(day, n, CAL) == expected


def test_after_hours_notice_names_the_hours_and_the_next_opening():
    assert after_hours_notice(at("2026-08-14T10:00"), CAL) is None
    assert after_hours_notice(at("2026-08-14T19:10"), CAL) == (
        "지금은 운영시간(평일 09:00–18:00)이 아니어서 상담원이 8월 18일(화) 오전 9시부터 답변드립니다."
    )
    afternoon = BusinessCalendar(days=frozenset({0, 2, 4}), opens=time(13, 30), closes=time(20), holidays=frozenset())
    assert hours_phrase(afternoon) == "월·수·금 13:30–20:00"
    assert after_hours_notice(at("2026-08-18T10:00"), afternoon) == (
        "지금은 운영시간(월·수·금 13:30–20:00)이 아니어서 상담원이 8월 19일(수) 오후 1시 30분부터 답변드립니다."
    )


def test_a_calendar_without_open_hours_is_refused():
    with pytest.raises(ValueError):
        BusinessCalendar(days=frozenset(), opens=time(9), closes=time(18), holidays=frozenset())
    with pytest.raises(ValueError):
        BusinessCalendar(days=frozenset({0}), opens=time(18), closes=time(9), holidays=frozenset())


def test_the_settings_calendar_holds_the_korean_holidays(shop_hours):
    calendar = business_calendar()
    assert calendar.is_open_day(date(2026, 8, 14)) and not calendar.is_open_day(date(2026, 8, 17))
    assert hours_phrase(calendar) == "평일 09:00–18:00"


@pytest.mark.parametrize(
    "pin, expected",
    [
        (None, datetime(2026, 1, 1, tzinfo=SEOUL)),
        ("2026-08-14T17:00:00+09:00", at("2026-08-14T17:00")),
        ("2026-08-14T17:00", at("2026-08-14T17:00")),  # no offset: Seoul time
    ],
)
def test_cs_now_pins_the_clock(pin, expected):
    assert resolve_now(pin, datetime(2026, 1, 1, tzinfo=SEOUL)) == expected

"""The desk's business hours: when people answer, counted in Asia/Seoul.

One calendar drives three things: the ticket SLA clocks (tickets.policy), the statutory refund deadline
(actions.policy, counted in business days) and what a customer is told outside the hours (chat, the ticket
API). The arithmetic below is pure: every function takes the calendar and the moments it works on. Only
`business_calendar()` reads settings (CS_BUSINESS_DAYS, CS_BUSINESS_HOURS, CS_HOLIDAYS), at call time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings

from common.clock import SEOUL

WEEKDAY_NAMES = "월화수목금토일"  # date.weekday(): Monday is 0
# A calendar with no open day would loop forever; no real schedule closes for this long.
_MAX_DAYS = 3660


@dataclass(frozen=True)
class BusinessCalendar:
    days: frozenset[int]  # open weekdays, Monday = 0
    opens: time
    closes: time
    holidays: frozenset[date]
    tz: ZoneInfo = SEOUL

    def __post_init__(self) -> None:
        if not self.days or self.closes <= self.opens:
            raise ValueError("a business calendar needs at least one open day and closing after opening")

    def is_open_day(self, day: date) -> bool:
        return day.weekday() in self.days and day not in self.holidays

    def window(self, day: date) -> tuple[datetime, datetime]:
        return datetime.combine(day, self.opens, tzinfo=self.tz), datetime.combine(day, self.closes, tzinfo=self.tz)

    @property
    def day_seconds(self) -> float:
        """The length of one business day (the hours between opening and closing)."""
        opens, closes = self.window(date(2000, 1, 3))
        return (closes - opens).total_seconds()


def _open_days(start: date):
    day = start
    for _ in range(_MAX_DAYS):
        yield day
        day += timedelta(days=1)
    raise ValueError("no business day found in ten years")


def is_business_time(at: datetime, calendar: BusinessCalendar) -> bool:
    local = at.astimezone(calendar.tz)
    if not calendar.is_open_day(local.date()):
        return False
    opens, closes = calendar.window(local.date())
    return opens <= local < closes


def next_opening(at: datetime, calendar: BusinessCalendar) -> datetime:
    """`at` itself during business hours, else the next moment the desk opens."""
    local = at.astimezone(calendar.tz)
    for day in _open_days(local.date()):
        if not calendar.is_open_day(day):
            continue
        opens, closes = calendar.window(day)
        if local < closes:
            return max(local, opens)
    raise AssertionError("unreachable")


def business_add(start: datetime, seconds: float, calendar: BusinessCalendar) -> datetime:
    """The moment `seconds` of business time after `start` (outside the hours, counting starts at the next
    opening; 0 seconds from a closed moment is that opening)."""
    remaining = max(0.0, seconds)
    local = start.astimezone(calendar.tz)
    for day in _open_days(local.date()):
        if not calendar.is_open_day(day):
            continue
        opens, closes = calendar.window(day)
        begin = max(local, opens)
        if begin >= closes:
            continue
        available = (closes - begin).total_seconds()
        if remaining <= available:
            return begin + timedelta(seconds=remaining)
        remaining -= available
    raise AssertionError("unreachable")


def business_seconds_between(start: datetime, end: datetime, calendar: BusinessCalendar) -> float:
    """Business time from `start` to `end`; negative when `end` is earlier (time past a due moment)."""
    if end < start:
        return -business_seconds_between(end, start, calendar)
    first, last = start.astimezone(calendar.tz), end.astimezone(calendar.tz)
    total = 0.0
    day = first.date()
    while day <= last.date():
        if calendar.is_open_day(day):
            opens, closes = calendar.window(day)
            begin, finish = max(first, opens), min(last, closes)
            if finish > begin:
                total += (finish - begin).total_seconds()
        day += timedelta(days=1)
    return total


def business_day_after(day: date, count: int, calendar: BusinessCalendar) -> date:
    """The `count`-th business day after `day` (the day itself is not counted, as a legal term starts the day
    after the event)."""
    found = 0
    for candidate in _open_days(day + timedelta(days=1)):
        if calendar.is_open_day(candidate):
            found += 1
            if found >= count:
                return candidate
    raise AssertionError("unreachable")


def hours_phrase(calendar: BusinessCalendar) -> str:
    """평일 09:00–18:00 (or the open weekdays named, e.g. 월–토 / 월·수·금)."""
    days = sorted(calendar.days)
    if days == [0, 1, 2, 3, 4]:
        which = "평일"
    elif days == list(range(days[0], days[-1] + 1)) and len(days) > 2:
        which = f"{WEEKDAY_NAMES[days[0]]}–{WEEKDAY_NAMES[days[-1]]}"
    else:
        which = "·".join(WEEKDAY_NAMES[d] for d in days)
    return f"{which} {calendar.opens:%H:%M}–{calendar.closes:%H:%M}"


def moment_words(at: datetime, calendar: BusinessCalendar) -> str:
    """8월 18일(화) 오전 9시 / 오후 1시 30분 — how people say a time."""
    local = at.astimezone(calendar.tz)
    half = "오전" if local.hour < 12 else "오후"
    hour = local.hour % 12 or 12
    minutes = f" {local.minute}분" if local.minute else ""
    return f"{local.month}월 {local.day}일({WEEKDAY_NAMES[local.weekday()]}) {half} {hour}시{minutes}"


def after_hours_notice(at: datetime, calendar: BusinessCalendar) -> str | None:
    """What a customer reads when a person is asked for outside business hours; None inside them."""
    if is_business_time(at, calendar):
        return None
    opening = next_opening(at, calendar)
    return (
        f"지금은 운영시간({hours_phrase(calendar)})이 아니어서 상담원이 "
        f"{moment_words(opening, calendar)}부터 답변드립니다."
    )


def business_calendar() -> BusinessCalendar:
    """The calendar the settings describe (read now, not at import)."""
    opens, closes = settings.CS_BUSINESS_HOURS
    return BusinessCalendar(
        days=frozenset(settings.CS_BUSINESS_DAYS),
        opens=time.fromisoformat(opens),
        closes=time.fromisoformat(closes),
        holidays=frozenset(date.fromisoformat(d) for d in settings.CS_HOLIDAYS),
    )

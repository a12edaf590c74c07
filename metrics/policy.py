"""Which day a timestamp belongs to and which days a report covers. Pure functions on plain values.

Days are calendar days in Asia/Seoul; a report's `since`/`until` are inclusive.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta, tzinfo


def day_bounds(since: date | None, until: date | None, tz: tzinfo) -> tuple[datetime | None, datetime | None]:
    """Aware [start, end) instants for inclusive local days: start of `since`, start of the day after `until`."""
    if since and until and since > until:
        raise ValueError(f"since ({since}) is after until ({until})")
    start = datetime.combine(since, time.min, tzinfo=tz) if since else None
    end = datetime.combine(until + timedelta(days=1), time.min, tzinfo=tz) if until else None
    return start, end


def local_day(moment: datetime, tz: tzinfo) -> date:
    return moment.astimezone(tz).date()


def report_days(since: date | None, until: date | None, seen: Iterable[date]) -> list[date]:
    """Every day from the first to the last one reported, gaps included (charts need a continuous axis).

    An open end is closed by the data seen; with no bounds and no data there are no days.
    """
    seen = sorted(set(seen))
    first = since or (seen[0] if seen else until)
    last = until or (seen[-1] if seen else since)
    if first is None or last is None:
        return []
    if first > last:
        return []
    return [first + timedelta(days=offset) for offset in range((last - first).days + 1)]


# No shop data predates this; together with the upper bound it keeps every date arithmetic in range
# (date.max + 1 day overflows).
EARLIEST_DAY = date(2000, 1, 1)


def range_problem(since: date | None, until: date | None, *, today: date, max_days: int) -> str | None:
    """Why a report range may not be computed (a Korean message), or None. Days lie between EARLIEST_DAY
    and a year after today; a range spans at most `max_days` days, an open end counting up to today."""
    latest = today + timedelta(days=366)
    for day in (since, until):
        if day is not None and not EARLIEST_DAY <= day <= latest:
            return f"날짜는 {EARLIEST_DAY.isoformat()}부터 {latest.isoformat()}까지 입력할 수 있습니다."
    if since and until and since > until:
        return "시작일이 종료일보다 늦습니다."
    if since is not None:
        end = until or max(today, since)
        if (end - since).days + 1 > max_days:
            return f"조회 기간은 최대 {max_days}일입니다. 시작일과 종료일을 좁혀 주세요."
    return None


# The dashboard's default range: two weeks, the span an operator looks back over.
DEFAULT_RANGE_DAYS = 14


def default_range(last_activity: date | None, today: date, days: int = DEFAULT_RANGE_DAYS) -> tuple[date, date]:
    """The inclusive days the dashboard shows when none are asked for: the last `days` days up to the later of
    `today` and the last day with activity.

    The demo's "today" (CS_TODAY) and the machine clock that stamps new chats can lie months apart. Ending at
    today alone would hide everything recorded since; spanning all the data would draw months of empty days
    between the two clusters. Ending at the later of the two shows the most recent two weeks that have data."""
    until = max(today, last_activity) if last_activity else today
    return until - timedelta(days=days - 1), until

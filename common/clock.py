"""Where "today" and "now" come from. Kept out of policy so the rules stay pure functions of their inputs.

Two pins, for demos and tests: `CS_TODAY` (a date: the windows of the seed's 실습 기준일) and `CS_NOW` (an
aware ISO datetime: the clock the ticket desk's timestamps, due times and SLA states read). A pinned clock does
not move: a test moves it by setting `CS_NOW` again.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

SEOUL = ZoneInfo("Asia/Seoul")


def resolve_today(cs_today: str | None, now: datetime) -> date:
    """`CS_TODAY` (YYYY-MM-DD) when set, else the date of `now` in Asia/Seoul."""
    if cs_today:
        return date.fromisoformat(cs_today.strip())
    return now.astimezone(SEOUL).date()


def resolve_now(cs_now: str | None, real: datetime) -> datetime:
    """`CS_NOW` (ISO 8601 with an offset, e.g. 2026-08-14T17:00:00+09:00) when set, else `real`. A pin without an
    offset is read as Asia/Seoul time."""
    if not cs_now:
        return real
    pinned = datetime.fromisoformat(cs_now.strip())
    return pinned if pinned.tzinfo is not None else pinned.replace(tzinfo=SEOUL)


def now() -> datetime:
    return resolve_now(getattr(settings, "CS_NOW", None), timezone.now())


def today() -> date:
    return resolve_today(getattr(settings, "CS_TODAY", None), now())

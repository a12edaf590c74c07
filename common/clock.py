"""Where "today" comes from. Kept out of policy so the rules stay pure functions of their inputs."""

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


def today() -> date:
    return resolve_today(getattr(settings, "CS_TODAY", None), timezone.now())

"""The desk's calendar as the pure-rule tests pin it (common business hours, ticket SLAs, refund deadlines), and
moments written as Seoul wall-clock times. No DB."""

from __future__ import annotations

from datetime import date, datetime, time

from common.business_hours import BusinessCalendar
from common.clock import SEOUL

# Weekdays 09:00–18:00; 2026-08-17 (Monday) is the substitute holiday for 광복절 (Saturday 8/15).
CAL = BusinessCalendar(
    days=frozenset(range(5)), opens=time(9), closes=time(18), holidays=frozenset({date(2026, 8, 17)})
)
H = 3600


def at(text: str) -> datetime:
    """`2026-08-13T10:00` as an aware moment in Asia/Seoul."""
    return datetime.fromisoformat(text).replace(tzinfo=SEOUL)

"""Pure rules of the access log: the retention period, the review month and what counts as unusual."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

# Two years (개인정보의 안전성 확보조치 기준 제8조: at least one year, two for processors of 50,000+ subjects or
# sensitive data). The setting CS_ACCESS_LOG_RETENTION_DAYS overrides it; the retention sweep reads it through
# `access_log_retention()`.
ACCESS_LOG_RETENTION_DAYS = 730
# The purge refuses a period shorter than one year, whatever the setting says (the standard's floor).
ACCESS_LOG_RETENTION_MIN_DAYS = 365
# A review month flags an operator whose record count is above this multiple of the median operator's.
UNUSUAL_FACTOR = 3.0
# ... and above this many records (a quiet month with one busy afternoon is not an alarm).
UNUSUAL_MIN_RECORDS = 200
EXPORT_REASON_MAX = 500

_MONTH = re.compile(r"(\d{4})-(0[1-9]|1[0-2])")


def retention_days(configured: float | int | None) -> int:
    days = int(configured) if configured else ACCESS_LOG_RETENTION_DAYS
    return max(days, ACCESS_LOG_RETENTION_MIN_DAYS)


def purge_cutoff(now: datetime, days: int) -> datetime:
    return now - timedelta(days=days)


def parse_month(text: str) -> date:
    """`2026-11` → 2026-11-01; anything else raises ValueError."""
    match = _MONTH.fullmatch(text.strip())
    if not match:
        raise ValueError("월은 YYYY-MM 형식으로 주세요 (예: 2026-11).")
    return date(int(match[1]), int(match[2]), 1)


def month_bounds(month: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[first instant, first instant of the next month) in the desk's time zone."""
    start = datetime(month.year, month.month, 1, tzinfo=tz)
    nxt = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
    return start, datetime(nxt.year, nxt.month, 1, tzinfo=tz)


def unusual_operators(counts: dict[str, int]) -> set[str]:
    """Operators whose count is far above the median operator's in the same month."""
    if not counts:
        return set()
    values = sorted(counts.values())
    middle = len(values) // 2
    median = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    return {name for name, count in counts.items() if count >= UNUSUAL_MIN_RECORDS and count > UNUSUAL_FACTOR * median}


def export_reason_clean(reason: str | None) -> str:
    """The reason as stored; blank when none was given (an export is then refused)."""
    return " ".join((reason or "").split())[:EXPORT_REASON_MAX]

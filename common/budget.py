"""The per-customer budget of model calls: per minute and per Asia/Seoul day (settings).

Counted in Django's cache, not the database. In production the cache is Redis, shared by every gunicorn
worker and Celery process, and INCR is atomic, so the budget holds across processes; fixed windows cost
one pipelined round trip per charge and expire by themselves. A budget is a guard against floods, not a record
(`LLMCall` rows are the record), so losing the counters (a Redis restart) only resets the windows — and a
cache that cannot be reached lets the call through (fail open, logged) instead of taking the API down.
Embedded mode (no REDIS_URL) counts in the process's local memory.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import caches

from common.cache import counters_add
from common.clock import SEOUL
from common.errors import RateLimited

log = logging.getLogger(__name__)

KEY_PREFIX = "cs:model-budget"


def _windows(now: float) -> list[tuple[str, int, int, str]]:
    """(key suffix, limit, seconds until the window ends, Korean message) for each window."""
    local = datetime.fromtimestamp(now, SEOUL)
    midnight = datetime.combine(local.date() + timedelta(days=1), datetime.min.time(), tzinfo=SEOUL)
    return [
        (
            f"m:{int(now // 60)}",
            settings.CS_MODEL_BUDGET_PER_MINUTE,
            60 - int(now % 60),
            "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.",
        ),
        (
            f"d:{local.date().isoformat()}",
            settings.CS_MODEL_BUDGET_PER_DAY,
            max(1, int((midnight - local).total_seconds())),
            "오늘 이용할 수 있는 자동 상담 한도를 모두 사용했습니다. 내일 다시 이용하시거나 고객센터로 문의해 주세요.",
        ),
    ]


def model_budget_charge(*, customer_id: str, calls: int = 1, now: float | None = None) -> None:
    """Count `calls` model calls for the customer, or raise RateLimited (nothing counted) when that would go
    over the minute or the day budget. Both windows are counted in one round trip (common.cache.counters_add)."""
    now = time.time() if now is None else now
    windows = _windows(now)
    keys = [f"{KEY_PREFIX}:{customer_id}:{suffix}" for suffix, *_ in windows]
    try:
        ttls = [remaining_s + 60 for _, _, remaining_s, _ in windows]
        used = counters_add(caches["default"], [(key, calls, ttl) for key, ttl in zip(keys, ttls, strict=True)])
        for value, (suffix, limit, remaining_s, message) in zip(used, windows, strict=True):
            if value > limit:
                counters_add(caches["default"], [(key, -calls, ttl) for key, ttl in zip(keys, ttls, strict=True)])
                log.info("model_budget.exceeded customer_id=%s window=%s limit=%d", customer_id, suffix[0], limit)
                raise RateLimited(message, retry_after=remaining_s, code="model_budget_exceeded")
    except RateLimited:
        raise
    except Exception as exc:  # the cache backend's connection errors have no common base class
        log.warning("model_budget.unavailable customer_id=%s error_class=%s", customer_id, type(exc).__name__)

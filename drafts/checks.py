"""Startup check: the draft task's time limit < the ticket lease < the broker's visibility timeout.

Why the order matters: a live run must finish (or be killed) before its lease runs out, or a second run
starts on the same ticket; and the lease must run out before the broker redelivers the unacknowledged task,
or the redelivered copy finds its own dead run's lease and waits (or, before time-based waits, gave up).
Every task's time limit must also stay below the visibility timeout, or a slow task is delivered twice."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.checks import Error, register

TIMING_CHECK_ID = "drafts.E001"


@dataclass(frozen=True)
class Timings:
    task_time_limit_s: float
    lease_s: float
    visibility_timeout_s: float
    default_time_limit_s: float | None = None


def timings_from_settings() -> Timings:
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None) or {}
    return Timings(
        task_time_limit_s=float(settings.CS_AI_TASK_TIME_LIMIT_S),
        lease_s=float(settings.CS_AI_LEASE_S),
        # kombu's Redis transport default when the option is not set
        visibility_timeout_s=float(options.get("visibility_timeout", 3600)),
        default_time_limit_s=getattr(settings, "CELERY_TASK_TIME_LIMIT", None),
    )


def timing_problems(t: Timings) -> list[str]:
    """Pure: what is wrong with these timings (empty when the order holds)."""
    problems = []
    if not t.task_time_limit_s < t.lease_s:
        problems.append(
            f"CS_AI_TASK_TIME_LIMIT_S ({t.task_time_limit_s:g}s) must be below CS_AI_LEASE_S ({t.lease_s:g}s): "
            "a run still working when its lease expires lets a second run start on the same ticket."
        )
    if not t.lease_s < t.visibility_timeout_s:
        problems.append(
            f"CS_AI_LEASE_S ({t.lease_s:g}s) must be below the broker visibility timeout "
            f"({t.visibility_timeout_s:g}s, CELERY_VISIBILITY_TIMEOUT_S): a redelivered task would find its "
            "own dead run's lease still held."
        )
    if t.default_time_limit_s is not None and not t.default_time_limit_s < t.visibility_timeout_s:
        problems.append(
            f"CELERY_TASK_TIME_LIMIT ({t.default_time_limit_s:g}s) must be below the broker visibility timeout "
            f"({t.visibility_timeout_s:g}s): a task still running would be delivered a second time."
        )
    return problems


@register("drafts")
def timing_check(app_configs=None, **kwargs) -> list[Error]:
    return [
        Error(problem, hint="Keep task time limit < lease < visibility timeout.", id=TIMING_CHECK_ID)
        for problem in timing_problems(timings_from_settings())
    ]

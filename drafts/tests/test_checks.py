"""The startup check: draft task time limit < lease < broker visibility timeout, each misordering refused."""

import pytest
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from drafts.checks import TIMING_CHECK_ID


def _timing_errors() -> list[str]:
    return [m.msg for m in run_checks(tags=["drafts"]) if m.id == TIMING_CHECK_ID]


def test_the_shipped_defaults_hold_the_order():
    assert _timing_errors() == []


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"CS_AI_TASK_TIME_LIMIT_S": 200}, "CS_AI_TASK_TIME_LIMIT_S (200s) must be below CS_AI_LEASE_S (200s)"),
        ({"CS_AI_TASK_TIME_LIMIT_S": 250}, "CS_AI_TASK_TIME_LIMIT_S (250s) must be below CS_AI_LEASE_S"),
        ({"CS_AI_LEASE_S": 900}, "CS_AI_LEASE_S (900s) must be below the broker visibility timeout (600s"),
        ({"VISIBILITY": 240, "CS_AI_LEASE_S": 200}, "CELERY_TASK_TIME_LIMIT (300s) must be below"),
        ({"VISIBILITY": 150}, "CS_AI_LEASE_S (200s) must be below the broker visibility timeout (150s"),
    ],
)
def test_a_misordered_time_limit_lease_or_visibility_timeout_fails_the_system_check(settings, changes, named):
    for name, value in changes.items():
        if name == "VISIBILITY":
            settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
                **settings.CELERY_BROKER_TRANSPORT_OPTIONS,
                "visibility_timeout": value,
            }
        else:
            setattr(settings, name, value)
    errors = _timing_errors()
    assert any(named in e for e in errors), errors
    with pytest.raises(SystemCheckError, match=TIMING_CHECK_ID):
        call_command("check")


def test_the_worker_s_draft_task_takes_its_time_limits_from_the_settings(settings):
    from drafts.tasks import generate_draft_task

    assert (generate_draft_task.soft_time_limit, generate_draft_task.time_limit) == (
        settings.CS_AI_TASK_SOFT_TIME_LIMIT_S,
        settings.CS_AI_TASK_TIME_LIMIT_S,
    )

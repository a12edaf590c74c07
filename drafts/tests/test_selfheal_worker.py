"""Self-healing on a real broker and a real Celery worker (PostgreSQL + Redis): the repair tools queue and
report "queued"; the sweep brings back lost work, a dead run's ticket, a failed stage once the model is
back; a database connection killed mid-run is retried, not dead-lettered; a lease survives no Redis outage.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import redis
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from drafts.locks import lease_remaining_s
from drafts.models import DeadLetter, Draft
from drafts.services import drafts_sweep
from drafts.tests.support import inquiry
from llm.offline import respond
from llm.testing import Fault
from orders.tests.factories import desk_operator
from testsupport.celery_worker import TEST_BROKER_URL, worker_database_url

from . import test_worker
from .test_worker import task_outcomes, wait_until

slow_model = test_worker.slow_model  # the same fixture: answers like the offline model, 1 s per call

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _broker() -> redis.Redis:
    return redis.Redis.from_url(TEST_BROKER_URL)


def _inquiry(customer, subject="배송"):
    return inquiry(customer, subject=subject)


def _lost_inquiry(customer, settings, subject="배송"):
    """Committed and handed to the broker, then lost with the broker's memory (Redis restarted empty)."""
    ticket = _inquiry(customer, subject)
    _broker().delete(settings.CELERY_TASK_DEFAULT_QUEUE)
    return ticket


def _complete(ticket) -> bool:
    return Draft.objects.filter(ticket=ticket, status="GENERATED", qa_state="DONE", confidence_state="DONE").exists()


def _on_this_queue(settings, **extra) -> dict[str, str]:
    """Worker settings: tasks the worker itself sends (the sweep's requests) come back to the test's queue."""
    return {"CELERY_TASK_DEFAULT_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE, **extra}


# --- the repair tools with a broker -----------------------------------------------------------------
def test_regenerate_drafts_queues_every_target_and_goes_past_a_blocked_ticket(
    customer, offline_model, celery_worker_factory, settings
):
    blocked = _lost_inquiry(customer, settings, "A")
    free = _lost_inquiry(customer, settings, "B")
    # A dead worker's lease on the first ticket (sorted first): 3 s left.
    _broker().set(f"cs:ticket-lease:{blocked.pk}", "dead-worker", px=3000)
    worker = celery_worker_factory()

    out = StringIO()
    call_command("regenerate_drafts", "--no-progress", stdout=out)
    assert "대상 2건: queued=2" in out.getvalue()  # no result.ready(): there is no result backend

    wait_until(lambda: _complete(free), what="the free ticket's draft", log_path=worker.log_path)
    # The blocked one waits for the lease's remaining lifetime, then runs: no dead letter.
    wait_until(lambda: _complete(blocked), what="the blocked ticket's draft", log_path=worker.log_path)
    assert not DeadLetter.objects.exists()
    wait_until(lambda: len(task_outcomes(worker)) == 2, what="both outcomes", log_path=worker.log_path)
    assert sorted(task_outcomes(worker)) == ["done", "done"]

    out = StringIO()
    call_command("regenerate_drafts", "--no-progress", "--failed", stdout=out)
    assert "다시 만들 초안이 없습니다" in out.getvalue()


def test_the_admin_retry_button_queues_on_the_broker_and_the_worker_finishes(
    customer, offline_model, celery_worker_factory, settings, client
):
    ticket = _lost_inquiry(customer, settings)
    worker = celery_worker_factory()
    client.force_login(desk_operator())
    response = client.post(reverse("admin:tickets_ticket_draft_retry", args=[ticket.pk]), follow=True)
    assert response.status_code == 200
    assert "초안 생성을 다시 요청했습니다 (queued 1)" in response.content.decode()
    wait_until(lambda: _complete(ticket), what="the draft", log_path=worker.log_path)


# --- the sweep --------------------------------------------------------------------------------------
def test_celery_beat_runs_the_sweep_and_a_lost_task_gets_its_draft_with_no_human_action(
    customer, offline_model, celery_worker_factory, settings, tmp_path
):
    ticket = _lost_inquiry(customer, settings)
    worker = celery_worker_factory(extra_env=_on_this_queue(settings, CS_SWEEP_GRACE_S="0"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cs_project.settings.test",
        "REDIS_URL": TEST_BROKER_URL,
        "DATABASE_URL": worker_database_url(connection.settings_dict),
        "CELERY_TASK_DEFAULT_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "CS_SWEEP_INTERVAL_S": "1",
        "CELERY_BEAT_SCHEDULE_FILENAME": str(tmp_path / "celerybeat-schedule"),
    }
    log_path = tmp_path / "beat.log"
    with open(log_path, "wb") as log_file:
        beat = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "cs_project", "beat", "-l", "info"],
            cwd=Path(settings.BASE_DIR),
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: _complete(ticket), timeout=90, what="the swept draft", log_path=worker.log_path)
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=10)
    assert "ops.sweep" in log_path.read_text(errors="replace")
    assert "draft.sweep_requested" in worker.log_path.read_text(errors="replace")
    assert Draft.objects.get(ticket=ticket).attempts == 1


def test_a_killed_run_whose_message_was_lost_is_finished_by_the_sweep_after_its_lease(
    customer, slow_model, celery_worker_factory, settings
):
    settings.CS_SWEEP_GRACE_S = 0
    short = {"CS_AI_TASK_SOFT_TIME_LIMIT_S": "15", "CS_AI_TASK_TIME_LIMIT_S": "20", "CS_AI_LEASE_S": "25"}
    first = celery_worker_factory(extra_env=short)
    ticket = _inquiry(customer)
    wait_until(lambda: "draft" in slow_model.seen, what="the draft call", log_path=first.log_path)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    _broker().delete("unacked", "unacked_index")  # and the broker lost the unacknowledged message too
    assert Draft.objects.get(ticket=ticket).status == "PREPARING"

    second = celery_worker_factory()
    assert lease_remaining_s(ticket.pk) > 0
    assert drafts_sweep().requested == {}  # the dead run's lease still runs: nothing is started beside it
    wait_until(lambda: lease_remaining_s(ticket.pk) == 0, timeout=40, what="the lease to expire")
    assert drafts_sweep().requested == {"missing": 1}
    wait_until(lambda: _complete(ticket), timeout=90, what="the finished draft", log_path=second.log_path)
    assert Draft.objects.get(ticket=ticket).attempts == 2 and not DeadLetter.objects.exists()


def test_a_failed_stage_is_retried_by_the_sweep_once_the_model_recovers(
    customer, scripted_model, celery_worker, settings
):
    settings.CS_AI_FAILED_RETRY_BASE_S = 0
    scripted_model.handler = lambda body: Fault(500)
    ticket = _inquiry(customer)
    wait_until(lambda: Draft.objects.filter(ticket=ticket, status="FAILED").exists(), what="the FAILED draft")
    scripted_model.handler = respond
    assert drafts_sweep().requested == {"failed": 1}
    wait_until(lambda: _complete(ticket), what="the retried draft", log_path=celery_worker.log_path)
    draft = Draft.objects.get(ticket=ticket)
    assert draft.attempts == 2 and draft.errors.get("draft")


# --- faults during a run ----------------------------------------------------------------------------
def test_a_database_connection_killed_mid_run_is_retried_not_dead_lettered(customer, slow_model, celery_worker):
    ticket = _inquiry(customer)
    wait_until(lambda: "draft" in slow_model.seen, what="the draft call", log_path=celery_worker.log_path)
    with connection.cursor() as cursor:  # every other session on the test database: the worker's
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        assert cursor.fetchall()
    wait_until(lambda: _complete(ticket), timeout=90, what="the retried run", log_path=celery_worker.log_path)
    log = celery_worker.log_path.read_text(errors="replace")
    assert "drafts.fault_retry" in log and ("error=OperationalError" in log or "error=InterfaceError" in log)
    assert not DeadLetter.objects.exists()
    assert Draft.objects.get(ticket=ticket).attempts == 2

"""The draft pipeline on a real Celery worker process, with Redis as broker and lock, on PostgreSQL.

The worker is `celery -A cs_project worker` in its own process group (testsupport/celery_worker.py); the test
process commits rows and enqueues exactly as the web process does.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.db import transaction

from drafts.models import Draft
from drafts.tasks import generate_draft_task
from drafts.tests.support import inquiry
from llm.offline import respond, structured_name
from tickets.models import TicketMessage
from tickets.services import ticket_message_add

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


# A short lease and a short visibility timeout, swept every second: the same mechanism as production
# (200 s lease, 600 s visibility), on a test's time scale.
FAST_RECOVERY = {"CS_AI_LEASE_S": "6", "CELERY_VISIBILITY_TIMEOUT_S": "8", "CELERY_RESTORE_INTERVAL_S": "1"}


def wait_until(condition, *, timeout: float = 60.0, what: str = "condition", log_path=None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    tail = log_path.read_text(errors="replace")[-3000:] if log_path else ""
    pytest.fail(f"timed out after {timeout:g}s waiting for {what}\n{tail}")


def task_outcomes(worker) -> list[str]:
    """What each finished run returned, from the worker's own log ('... succeeded in 0.1s: 'done'')."""
    outcomes = []
    for line in worker.log_path.read_text(errors="replace").splitlines():
        if "drafts.generate_draft[" in line and "succeeded in" in line:
            outcomes.append(line.rsplit(":", 1)[-1].strip().strip("'\"").split("'")[0])
    return outcomes


@pytest.fixture
def slow_model(scripted_model):
    """Answers like the offline model, 1 s per call; remembers which structured request arrived when."""
    scripted_model.latency_s = 1.0
    scripted_model.seen = []

    def handler(body):
        scripted_model.seen.append(structured_name(body) or "text")
        return respond(body)

    scripted_model.handler = handler
    return scripted_model


def _inquiry(customer, body="결제하려고 하면 계속 오류가 나요."):
    return inquiry(customer, body, category="결제", subject="결제")


def test_the_same_message_delivered_five_times_gives_one_draft(customer, offline_model, celery_worker):
    ticket = _inquiry(customer)  # the first delivery, on commit
    message = ticket.messages.get()
    for _ in range(5):
        generate_draft_task.delay(ticket.pk, message.pk)
    wait_until(lambda: len(task_outcomes(celery_worker)) == 6, what="six runs", log_path=celery_worker.log_path)
    assert sorted(task_outcomes(celery_worker)) == ["done"] + ["duplicate"] * 5
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.source_message_id, draft.attempts) == ("GENERATED", message.pk, 1)
    assert (draft.qa_state, draft.confidence_state) == ("DONE", "DONE")


def test_a_follow_up_during_generation_leaves_one_draft_from_the_newest_input(customer, slow_model, celery_worker):
    ticket = _inquiry(customer)
    first = ticket.messages.get()
    wait_until(lambda: "draft" in slow_model.seen, what="the first draft call", log_path=celery_worker.log_path)
    newest = ticket_message_add(ticket=ticket, body="카드를 바꿔도 똑같아요.", author=customer.user)
    wait_until(
        lambda: Draft.objects.filter(ticket=ticket, source_message=newest, confidence_state="DONE").exists(),
        timeout=90,
        what="the newest input's draft",
        log_path=celery_worker.log_path,
    )
    live = Draft.objects.get(ticket=ticket, status="GENERATED")
    assert live.source_message_id == newest.pk
    older = Draft.objects.filter(ticket=ticket, source_message=first).first()
    # The older run was fenced: either never created or SUPERSEDED with nothing of its stale work kept.
    assert older is None or (older.status == "SUPERSEDED" and older.qa_state != "DONE")
    assert Draft.objects.filter(ticket=ticket).count() <= 2


def test_an_older_event_arriving_after_a_newer_one_writes_nothing(customer, offline_model, celery_worker):
    with transaction.atomic():  # both inputs committed together: the older one's task is already stale
        ticket = _inquiry(customer)
        newest = ticket_message_add(ticket=ticket, body="지금도 안 돼요.", author=customer.user)
    older = ticket.messages.order_by("id").first()
    wait_until(lambda: len(task_outcomes(celery_worker)) == 2, what="two runs", log_path=celery_worker.log_path)
    live = Draft.objects.get(ticket=ticket)
    assert live.source_message_id == newest.pk
    before = Draft.objects.filter(ticket=ticket).values_list("id", "status", "body", "corrected_body")
    snapshot = list(before)

    generate_draft_task.delay(ticket.pk, older.pk)  # a late redelivery of the older event
    wait_until(lambda: len(task_outcomes(celery_worker)) == 3, what="the late run", log_path=celery_worker.log_path)
    assert sorted(task_outcomes(celery_worker)) == ["done", "stale", "stale"]
    assert list(before) == snapshot
    assert not Draft.objects.filter(source_message=older).exists()


def test_a_killed_worker_blocks_the_ticket_only_until_the_lease_expires(customer, slow_model, celery_worker_factory):
    first = celery_worker_factory(extra_env=FAST_RECOVERY)
    ticket = _inquiry(customer)
    wait_until(lambda: "draft" in slow_model.seen, what="the draft call", log_path=first.log_path)
    os.killpg(first.pid, signal.SIGKILL)  # mid-task: lease held in Redis, message unacknowledged
    first.wait(timeout=10)
    killed_at = time.monotonic()
    # Claimed before the model was called, then abandoned: the row is there, unfinished.
    assert Draft.objects.get(ticket=ticket).status == "PREPARING"

    second = celery_worker_factory(extra_env=FAST_RECOVERY)
    wait_until(
        lambda: Draft.objects.filter(ticket=ticket, status="GENERATED", confidence_state="DONE").exists(),
        timeout=90,
        what="the redelivered run to finish",
        log_path=second.log_path,
    )
    assert time.monotonic() - killed_at < 60
    draft = Draft.objects.get(ticket=ticket)
    assert draft.attempts >= 2 and draft.source_message_id == TicketMessage.objects.get(ticket=ticket).pk
    # The draft is written before the task returns: wait for the worker's "succeeded" line, don't race it.
    wait_until(lambda: "done" in task_outcomes(second), timeout=30, what="the run's outcome", log_path=second.log_path)

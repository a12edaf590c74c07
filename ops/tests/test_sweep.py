"""The periodic sweep in embedded mode (SQLite, no broker, the pipeline runs in-process): what was lost is
requested again, a dead run's draft is finished once its lease expires, a failed stage is retried when the
model is back (up to a limit), superseded leftovers are tidied. The same on a real worker: test_selfheal_worker.py."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from common.models import OutboxMessage
from drafts.models import DeadLetter, Draft, TicketLease
from drafts.services import drafts_regenerate, drafts_sweep, drafts_tidy_superseded, regenerate_targets
from llm.offline import respond
from llm.testing import Fault
from metrics.selectors import metrics_compute
from ops.sweep import embedded_sweeper_stop, sweep_run
from tickets.services import ticket_create, ticket_message_add

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def quiet(settings):
    """No grace period: an input is "old enough" at once (the production default is 90 s)."""
    settings.CS_SWEEP_GRACE_S = 0
    return settings


def _inquiry(customer, subject="배송", body="언제 와요?"):
    return ticket_create(
        customer=customer, category="배송", subject=subject, body=body, source="API", author=customer.user
    )


def _undrafted(customer, settings, subject="배송"):
    """An inquiry whose request ran while drafts could not be made: stored, requested, no draft."""
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = _inquiry(customer, subject)
    settings.CS_AI_DRAFTS_ENABLED = True
    assert not Draft.objects.filter(ticket=ticket).exists()
    return ticket


def _complete(draft: Draft) -> bool:
    return draft.status == "GENERATED" and (draft.draft_state, draft.qa_state, draft.confidence_state) == (
        "DONE",
        "DONE",
        "DONE",
    )


def test_an_input_left_without_a_draft_is_requested_again_after_the_grace_period(customer, offline_model, settings):
    ticket = _undrafted(customer, settings)
    settings.CS_SWEEP_GRACE_S = 3600
    assert drafts_sweep().requested == {}  # within the grace period the first request may still be running
    settings.CS_SWEEP_GRACE_S = 0
    assert drafts_sweep().requested == {"missing": 1}
    assert _complete(Draft.objects.get(ticket=ticket))
    assert OutboxMessage.objects.get(dedupe_key=f"draft.requested:{ticket.messages.get().pk}").status == "DONE"
    assert drafts_sweep().requested == {}  # complete: never requested twice


def test_a_request_that_could_not_be_handed_over_at_commit_is_dispatched_by_the_sweep(customer, offline_model, quiet):
    from common import outbox
    from drafts.tasks import draft_requested_handler

    def broker_down(message):
        raise ConnectionError("broker down")

    outbox.outbox_register("draft.requested", broker_down)
    try:
        ticket = _inquiry(customer)  # the customer's message is stored all the same
        row = OutboxMessage.objects.get(topic="draft.requested")  # (the other row: the shop's ticket.created)
        assert (row.status, row.last_error) == ("PENDING", "ConnectionError")
        assert drafts_sweep().requested == {}  # a PENDING request is the outbox's to hand over
    finally:
        outbox.outbox_register("draft.requested", draft_requested_handler)
    OutboxMessage.objects.update(next_attempt_at=timezone.now())  # its backoff has passed
    sweep_run()
    assert _complete(Draft.objects.get(ticket=ticket))


def test_a_preparing_draft_of_a_dead_run_is_finished_once_its_lease_expires(customer, offline_model, quiet):
    ticket = _undrafted(customer, quiet)
    message = ticket.messages.get()
    # What a run killed mid-generation leaves: its claimed draft and its lease.
    Draft.objects.create(ticket=ticket, source_message=message, input_at=message.created_at, attempts=1)
    TicketLease.objects.create(ticket_id=ticket.pk, holder="dead", expires_at=timezone.now() + timedelta(seconds=60))
    assert drafts_sweep().requested == {}  # the lease still runs: nobody else may work on the ticket
    assert Draft.objects.get(ticket=ticket).status == "PREPARING"

    TicketLease.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert drafts_sweep().requested == {"missing": 1}
    draft = Draft.objects.get(ticket=ticket)
    assert _complete(draft) and draft.attempts == 2


def test_a_failed_stage_is_retried_automatically_when_the_model_is_back_up_to_the_limit(
    customer, scripted_model, quiet
):
    quiet.CS_AI_FAILED_RETRY_BASE_S = 3600
    quiet.CS_AI_FAILED_RETRY_LIMIT = 2
    scripted_model.handler = lambda body: Fault(500)
    ticket = _inquiry(customer)
    assert Draft.objects.get(ticket=ticket).status == "FAILED"  # visible, as before
    assert drafts_sweep().requested == {}  # backing off

    quiet.CS_AI_FAILED_RETRY_BASE_S = 0
    assert drafts_sweep().requested == {"failed": 1}  # the model is still down: failed again
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.attempts) == ("FAILED", 2)

    scripted_model.handler = respond  # the model is back, but the automatic retries are used up
    assert drafts_sweep().requested == {}
    assert Draft.objects.get(ticket=ticket).status == "FAILED"  # left for people

    quiet.CS_AI_FAILED_RETRY_LIMIT = 3
    assert drafts_sweep().requested == {"failed": 1}
    draft = Draft.objects.get(ticket=ticket)
    assert _complete(draft) and draft.attempts == 3 and draft.errors.get("draft")  # the old error stays on record


def test_superseded_inputs_are_tidied_and_leave_the_unresolved_figure(customer, offline_model, settings):
    settings.CS_SWEEP_GRACE_S = 3600  # tidy only
    answered = _inquiry(customer, "A")
    old_draft = Draft.objects.get(ticket=answered)
    first = answered.messages.get()
    DeadLetter.objects.create(ticket=answered, source_message=first, error="OperationalError")
    preparing = _undrafted(customer, settings, "B")
    old_input = preparing.messages.get()
    stuck = Draft.objects.create(ticket=preparing, source_message=old_input, input_at=old_input.created_at)
    settings.CS_AI_DRAFTS_ENABLED = False  # the follow-ups' own drafts are not the point here
    ticket_message_add(ticket=answered, body="아직이요?", author=customer.user)
    latest = ticket_message_add(ticket=preparing, body="아직이요?", author=customer.user)
    needs_a_person = DeadLetter.objects.create(ticket=preparing, source_message=latest, error="lease_busy")
    assert metrics_compute(since=None, until=None)["now"]["unresolved_dead_letters"] == 2

    report = drafts_sweep()
    assert (report.superseded_drafts, report.resolved_dead_letters) == (2, 1)
    old_draft.refresh_from_db()
    stuck.refresh_from_db()
    assert (old_draft.status, stuck.status) == ("SUPERSEDED", "SUPERSEDED")
    letter = DeadLetter.objects.get(source_message=first)
    assert letter.resolved_at is not None and letter.resolution == "SUPERSEDED"
    needs_a_person.refresh_from_db()
    assert needs_a_person.resolved_at is None  # its input is still the latest: a person (or the retry) acts
    assert metrics_compute(since=None, until=None)["now"]["unresolved_dead_letters"] == 1
    assert drafts_tidy_superseded() == (0, 0)


def test_regenerate_goes_past_a_blocked_ticket(customer, offline_model, settings):
    blocked = _undrafted(customer, settings, "A")
    free = _undrafted(customer, settings, "B")
    TicketLease.objects.create(ticket_id=blocked.pk, holder="other", expires_at=timezone.now() + timedelta(seconds=60))
    report = drafts_regenerate()
    assert (report.considered, report.outcomes) == (2, {"busy": 1, "done": 1})
    assert _complete(Draft.objects.get(ticket=free)) and not Draft.objects.filter(ticket=blocked).exists()

    TicketLease.objects.all().delete()
    assert drafts_regenerate(failed_only=True).outcomes == {"done": 1}  # --failed finds the input without a draft
    assert _complete(Draft.objects.get(ticket=blocked))


def test_failed_only_finds_a_draft_stuck_preparing_past_the_lease(customer, settings):
    ticket = _undrafted(customer, settings)
    message = ticket.messages.get()
    draft = Draft.objects.create(
        ticket=ticket, source_message=message, input_at=message.created_at, attempts=1, attempted_at=timezone.now()
    )
    assert regenerate_targets(failed_only=True) == []  # a run may be working on it
    Draft.objects.filter(pk=draft.pk).update(
        attempted_at=timezone.now() - timedelta(seconds=settings.CS_AI_LEASE_S + 1)
    )
    assert regenerate_targets(failed_only=True) == [(ticket.pk, message.pk)]


def test_the_embedded_sweeper_starts_with_the_first_request_and_repairs_without_a_person(
    customer, offline_model, quiet
):
    quiet.CS_SWEEP_EMBEDDED, quiet.CS_SWEEP_INTERVAL_S, quiet.REDIS_URL = True, 0.2, None
    ticket = _undrafted(customer, quiet)
    try:
        Client().get("/healthz")  # any request starts this process's sweeper thread, once
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not Draft.objects.filter(ticket=ticket, status="GENERATED").exists():
            time.sleep(0.2)
    finally:
        embedded_sweeper_stop()
    assert _complete(Draft.objects.get(ticket=ticket))


def test_regenerate_with_the_broker_down_keeps_the_request_for_the_sweep(customer, offline_model, settings):
    from cs_project.celery import broker_pools_reset

    ticket = _undrafted(customer, settings)
    settings.CELERY_BROKER_URL = settings.REDIS_URL = "redis://127.0.0.1:6399/0"  # nothing listens there
    settings.CELERY_TASK_ALWAYS_EAGER = False
    broker_pools_reset()
    try:
        report = drafts_regenerate()
    finally:
        broker_pools_reset()
    assert report.outcomes == {"deferred": 1}  # reported, not raised; the loop would go on
    row = OutboxMessage.objects.get(dedupe_key=f"draft.requested:{ticket.messages.get().pk}")
    assert row.status == "PENDING" and row.last_error  # the sweep hands it over once the broker is back


def test_only_requested_work_is_repaired_and_moot_requests_are_closed(customer, offline_model, quiet):
    from tickets.models import Ticket, TicketMessage

    # generate_synthetic writes rows without a request: no AI work is wanted for them.
    synthetic = Ticket.objects.create(customer=customer, category="DELIVERY", subject="합성")
    TicketMessage.objects.create(ticket=synthetic, author_type="CUSTOMER", body="합성 문의")
    ticket = _undrafted(customer, quiet)
    first = ticket.messages.get()
    quiet.CS_AI_DRAFTS_ENABLED = False
    ticket_message_add(ticket=ticket, body="아직이요?", author=customer.user)  # supersedes the first request
    quiet.CS_AI_DRAFTS_ENABLED = True
    assert drafts_sweep().requested == {"missing": 1}  # the follow-up only
    assert not Draft.objects.filter(ticket=synthetic).exists()
    assert OutboxMessage.objects.get(dedupe_key=f"draft.requested:{first.pk}").status == "DONE"  # moot
    assert _complete(Draft.objects.get(ticket=ticket))


def test_each_pass_also_deletes_outbox_rows_finished_long_ago(customer, offline_model, settings):
    """Retention runs with the sweep, on its own (a broken part does not stop the others)."""
    settings.CS_OUTBOX_RETENTION_DAYS = 30
    ticket = _inquiry(customer)
    assert OutboxMessage.objects.filter(topic="draft.requested", status="DONE").exists()
    OutboxMessage.objects.filter(status="DONE").update(done_at=timezone.now() - timedelta(days=31))
    summary = sweep_run()
    assert summary["purged"] >= 1
    assert not OutboxMessage.objects.filter(topic="draft.requested").exists()
    assert _complete(Draft.objects.get(ticket=ticket))  # the work it asked for is done and stays


def test_each_pass_closes_answered_tickets_the_customer_left_and_records_it(customer, settings):
    """Auto-close runs with the sweep (Celery beat's ops.sweep, or the embedded thread): an answered ticket with
    no customer reply for CS_AUTO_CLOSE_DAYS is closed by the system, with an AUTO_CLOSED event."""
    from common.tests.factories import operator_with
    from tickets.services import ticket_reply_add

    operator = operator_with("tickets.reply_ticket")
    settings.CS_AI_DRAFTS_ENABLED = False
    settings.CS_AUTO_CLOSE_DAYS = 7
    settings.CS_NOW = "2026-08-03T10:00:00+09:00"
    left, fresh = _inquiry(customer), _inquiry(customer, subject="교환")
    ticket_reply_add(ticket=left, body="안내드립니다.", actor=operator)
    settings.CS_NOW = "2026-08-09T10:00:00+09:00"
    ticket_reply_add(ticket=fresh, body="안내드립니다.", actor=operator)
    settings.CS_NOW = "2026-08-10T10:00:00+09:00"
    assert sweep_run()["auto_closed"] == 1
    left.refresh_from_db()
    fresh.refresh_from_db()
    assert (left.status, fresh.status) == ("CLOSED", "ANSWERED")
    event = left.events.get(type="AUTO_CLOSED")
    assert (event.actor_type, event.actor_id, event.payload["after"]) == ("SYSTEM", None, "CLOSED")
    assert sweep_run()["auto_closed"] == 0

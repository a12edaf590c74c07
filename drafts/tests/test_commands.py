"""`regenerate_drafts` and dead letters: every failure ends in a state an operator sees and can retry."""

import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from drafts.locks import ticket_lease
from drafts.models import DeadLetter, Draft
from drafts.tasks import generate_draft_task
from drafts.tests.support import inquiry
from llm.offline import respond
from llm.testing import Fault

pytestmark = pytest.mark.django_db(transaction=True)


def _run(*args):
    out = StringIO()
    call_command("regenerate_drafts", "--no-progress", *args, stdout=out)
    return out.getvalue()


def _inquiry(customer, subject="배송"):
    return inquiry(customer, subject=subject)


def test_failed_drafts_are_retried_and_complete_ones_left_alone(customer, scripted_model):
    scripted_model.handler = lambda body: Fault(500)
    broken = _inquiry(customer, "고장")
    scripted_model.handler = respond
    fine = _inquiry(customer, "정상")
    assert Draft.objects.get(ticket=broken).status == "FAILED"

    assert "대상 1건: done=1" in _run("--failed")
    draft = Draft.objects.get(ticket=broken)
    assert (draft.status, draft.draft_state, draft.qa_state, draft.attempts) == ("GENERATED", "DONE", "DONE", 2)
    assert Draft.objects.get(ticket=fine).attempts == 1  # complete: never made twice
    assert "다시 만들 초안이 없습니다" in _run()


def test_a_ticket_without_a_draft_gets_one_for_its_latest_input(customer, offline_model, settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = _inquiry(customer)
    assert not Draft.objects.filter(ticket=ticket).exists()
    settings.CS_AI_DRAFTS_ENABLED = True
    assert "대상 1건: done=1" in _run("--ticket", ticket.number)
    assert Draft.objects.get(ticket=ticket).status == "GENERATED"


def test_bad_ticket_number_is_refused():
    with pytest.raises(CommandError, match="T00001"):
        _run("--ticket", "12x")


def test_a_run_that_gives_up_leaves_a_dead_letter_that_regenerate_clears(customer, offline_model, settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = _inquiry(customer)
    message = ticket.messages.get()
    settings.CS_AI_DRAFTS_ENABLED = True
    with ticket_lease(ticket.pk) as held:  # someone else holds the ticket and never lets go
        assert held
        # Waiting is bounded by time, not by a count: a run that has already waited CS_AI_LEASE_WAIT_S
        # and still finds the lease busy gives up.
        busy_since = time.time() - settings.CS_AI_LEASE_WAIT_S - 1
        generate_draft_task.apply((ticket.pk, message.pk), {"busy_since": busy_since}, retries=3)
    letter = DeadLetter.objects.get()
    assert (letter.ticket_id, letter.source_message_id, letter.error, letter.resolved_at) == (
        ticket.pk,
        message.pk,
        "lease_busy",
        None,
    )

    assert "done=1" in _run("--failed")
    letter.refresh_from_db()
    assert letter.resolved_at is not None
    assert Draft.objects.get(ticket=ticket).status == "GENERATED"

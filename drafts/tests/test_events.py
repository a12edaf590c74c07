"""Every change of a draft's status writes one DraftEvent with its actor, in the change's transaction."""

from __future__ import annotations

import pytest
from django.db import transaction

from drafts.models import Draft, DraftEvent
from drafts.services import draft_apply, draft_reject, drafts_tidy_superseded
from drafts.tests.support import inquiry
from llm.testing import Fault
from tickets.models import TicketEvent
from tickets.services import ticket_message_add

pytestmark = pytest.mark.django_db(transaction=True)

MONEY_CLAIM = "전액 환불이 승인되었습니다. 3영업일 안에 입금됩니다."


def _events(draft):
    return list(draft.events.order_by("id").values_list("type", "actor_type", "actor_id"))


def test_the_pipeline_records_created_then_generated_as_the_system(live_draft):
    assert _events(live_draft) == [("CREATED", "SYSTEM", None), ("GENERATED", "SYSTEM", None)]
    generated = live_draft.events.get(type="GENERATED")
    assert generated.payload == {"before": "PREPARING", "after": "GENERATED", "attempt": 1}
    assert generated.actor_label == "AI 초안 파이프라인"


def test_a_failed_run_records_failed_with_the_error_class(customer, scripted_model):
    scripted_model.handler = lambda body: Fault(500)
    ticket = inquiry(customer, "언제?")
    draft = Draft.objects.get(ticket=ticket)
    assert draft.status == "FAILED"
    failed = draft.events.get(type="FAILED")
    assert (failed.actor_type, failed.payload["before"], failed.payload["after"]) == ("SYSTEM", "PREPARING", "FAILED")
    assert failed.payload["errors"]["draft"] == "InternalServerError"  # a class name, no text


def test_apply_records_applied_by_the_operator_and_the_tickets_reply(live_draft, desk_user):
    draft_apply(draft_id=live_draft.pk, final_body=None, actor=desk_user)
    assert _events(live_draft)[-1] == ("APPLIED", "OPERATOR", desk_user.pk)
    applied = live_draft.events.get(type="APPLIED")
    assert applied.payload == {
        "before": "GENERATED",
        "after": "APPLIED",
        "applied": "UNCHANGED",
        "edit_ratio": 0.0,
        "tags": [],
    }
    ticket_events = list(live_draft.ticket.events.order_by("id").values_list("type", "actor_id"))
    assert ticket_events[-2:] == [("REPLIED", desk_user.pk), ("STATUS_CHANGED", desk_user.pk)]


def test_an_overridden_hold_records_overridden_beside_applied(live_draft, desk_user):
    draft_apply(draft_id=live_draft.pk, final_body=MONEY_CLAIM, actor=desk_user, override_reason="전화로 확인함")
    overridden = live_draft.events.get(type="OVERRIDDEN")
    assert (overridden.actor_type, overridden.actor_id) == ("OPERATOR", desk_user.pk)
    assert "money_claim" in overridden.payload["holds"] and overridden.payload["claims"] >= 1


def test_reject_records_rejected_by_the_operator(live_draft, desk_user):
    draft_reject(draft_id=live_draft.pk, actor=desk_user)
    assert _events(live_draft)[-1] == ("REJECTED", "OPERATOR", desk_user.pk)
    assert live_draft.events.get(type="REJECTED").payload == {"before": "GENERATED", "after": "REJECTED", "tags": []}


def test_a_newer_draft_supersedes_the_older_one_with_an_event(live_draft, customer):
    ticket_message_add(ticket=live_draft.ticket, body="그리고 영수증도 필요해요.", author=customer.user)
    live_draft.refresh_from_db()
    assert live_draft.status == "SUPERSEDED"
    superseded = live_draft.events.get(type="SUPERSEDED")
    assert superseded.actor_type == "SYSTEM"
    assert superseded.payload["before"] == "GENERATED" and superseded.payload["after"] == "SUPERSEDED"


def test_the_sweep_records_each_draft_it_supersedes(live_draft, customer, settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the follow-up gets no draft: only the sweep tidies
    ticket_message_add(ticket=live_draft.ticket, body="추가 문의", author=customer.user)
    assert drafts_tidy_superseded() == (1, 0)
    superseded = live_draft.events.get(type="SUPERSEDED")
    assert (superseded.actor_type, superseded.actor_label) == ("SYSTEM", "자동 정리(sweep)")
    assert superseded.payload == {"before": "GENERATED", "after": "SUPERSEDED", "reason": "newer_input"}
    assert drafts_tidy_superseded() == (0, 0)
    assert live_draft.events.filter(type="SUPERSEDED").count() == 1


def test_a_rolled_back_apply_leaves_no_event_message_or_status(live_draft, desk_user):
    ticket_events = TicketEvent.objects.count()
    with pytest.raises(RuntimeError), transaction.atomic():
        draft_apply(draft_id=live_draft.pk, final_body=None, actor=desk_user)
        raise RuntimeError("the surrounding change failed")
    live_draft.refresh_from_db()
    assert live_draft.status == "GENERATED"
    assert not DraftEvent.objects.filter(type="APPLIED").exists()
    assert TicketEvent.objects.count() == ticket_events
    assert not live_draft.ticket.messages.filter(author_type="OPERATOR").exists()

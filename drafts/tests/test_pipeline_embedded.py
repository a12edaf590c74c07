"""The draft pipeline in embedded mode: no Redis, tasks run in-process after commit, offline model."""

import pytest
from django.db import connection

from drafts.models import Draft
from drafts.pipeline import draft_generate
from drafts.tests.support import inquiry
from tickets.services import ticket_message_add

pytestmark = pytest.mark.django_db(transaction=True)


def test_new_inquiry_gets_a_full_draft_after_commit(c005, offline_model):
    """On the demo: the draft cites the shop's knowledge base and diagnoses C005's seeded payment failures."""
    ticket = inquiry(
        c005, "결제 버튼을 눌렀는데 결제가 안 돼요. 카드는 정상입니다.", category="오류", subject="결제가 안 돼요"
    )
    draft = Draft.objects.get(ticket=ticket)
    assert draft.status == "GENERATED"
    assert (draft.draft_state, draft.qa_state, draft.confidence_state, draft.diagnosis_state) == ("DONE",) * 4
    assert draft.body and draft.corrected_body
    assert draft.citations and draft.dropped_citations == []  # QA cites a retrieved chunk, checked by code
    assert set(draft.confidence) == {"groundedness", "completeness", "safety", "uncertainty_handling"}
    assert "total" not in str(draft.confidence).lower()
    assert draft.diagnosis["verdict"] in {"FAILURE_POINT_IDENTIFIED", "PARTIAL_EVIDENCE", "INSUFFICIENT"}
    assert draft.input_at <= draft.draft_at <= draft.qa_at <= draft.confidence_at
    assert set(draft.context_report) >= {
        "profile",
        "orders",
        "action_records",
        "past_tickets",
        "payments",
        "shipping_events",
    }
    # The diagnosis is for operators: it never reaches the customer's draft text.
    assert "FAILURE_POINT" not in draft.answer
    # Seeded payment-failure events for C005 around the inquiry time are redacted before and after the model.
    from common.redaction import find_sensitive

    assert find_sensitive(str(draft.diagnosis)) == []
    assert draft.recommended_tags and set(draft.recommended_tags) <= {
        "환불",
        "교환",
        "배송",
        "결제오류",
        "계정",
        "앱오류",
        "불만",
        "재문의",
    }


def test_follow_up_supersedes_and_redelivery_does_nothing(customer, offline_model):
    ticket = inquiry(customer, "환불은 언제 되나요?", category="교환/반품", subject="환불")
    first = Draft.objects.get(ticket=ticket)
    message = ticket_message_add(ticket=ticket, body="카드 환불은 며칠 걸리나요?", author=customer.user)
    assert Draft.objects.get(pk=first.pk).status == "SUPERSEDED"
    assert Draft.objects.get(ticket=ticket, status="GENERATED").source_message_id == message.pk
    for _ in range(5):
        assert draft_generate(ticket_id=ticket.pk, message_id=message.pk) == "duplicate"
    assert Draft.objects.filter(ticket=ticket).count() == 2
    # An older event arriving after the newer one writes nothing.
    assert draft_generate(ticket_id=ticket.pk, message_id=first.source_message_id) == "stale"
    assert Draft.objects.filter(ticket=ticket).count() == 2


def test_disabled_flag_stops_new_processing(customer, offline_model, settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = inquiry(customer)
    assert not Draft.objects.filter(ticket=ticket).exists()


def test_model_failure_ends_in_visible_failed_state(customer, scripted_model):
    from llm.testing import Fault

    scripted_model.handler = lambda body: Fault(500)
    ticket = inquiry(customer)
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.draft_state) == ("FAILED", "FAILED")
    assert draft.errors["draft"] == "InternalServerError"
    connection.close()

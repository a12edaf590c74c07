"""Staff-only API: tickets with conversation and drafts, draft decisions, approval decisions."""

import pytest
from rest_framework.test import APIClient

from actions.models import ActionRecord
from actions.tests.factories import refund_requested
from drafts.models import Draft
from drafts.tests.support import inquiry
from tickets.models import TicketMessage

pytestmark = pytest.mark.django_db(transaction=True)

# Every field an operator's tools read, pinned here (not read from the serializer) so a lost field fails the test.
DRAFT_FIELDS = set(
    """draft_id status status_display source_message_id answer original_body corrected_body citations
    dropped_citations draft_model qa_model qa_changes confidence hard_blockers claim_blockers recommended_tags
    diagnosis context_report stages errors attempts timings applied edit_ratio final_body decided_by decided_at
    override_reason override_by override_at override_holds""".split()
)


def test_ticket_list_and_detail_carry_conversation_and_every_draft_field(staff_api, c005_draft):
    """On the demo: the citations' titles and texts come from the shop's knowledge base."""
    live_draft = c005_draft
    number = live_draft.ticket.number
    listed = staff_api.get("/api/ops/tickets/?status=OPEN").json()
    assert listed["count"] == 1
    item = listed["results"][0]
    assert (item["ticket_id"], item["customer_id"], item["category"]) == (number, "C005", "ERROR")
    assert item["latest_draft"] == {"draft_id": live_draft.pk, "status": "GENERATED"}

    detail = staff_api.get(f"/api/ops/tickets/{number}/").json()
    assert [m["author_type"] for m in detail["messages"]] == ["CUSTOMER"]
    draft = detail["drafts"][0]
    assert set(draft) == DRAFT_FIELDS
    assert set(draft["confidence"]) == {"groundedness", "completeness", "safety", "uncertainty_handling"}
    assert draft["diagnosis"]["verdict"] in {"FAILURE_POINT_IDENTIFIED", "PARTIAL_EVIDENCE", "INSUFFICIENT"}
    assert draft["stages"] == {"draft": "DONE", "qa": "DONE", "confidence": "DONE", "tags": "DONE", "diagnosis": "DONE"}
    assert set(draft["timings"]) == {"input_at", "draft_at", "qa_at", "confidence_at"}
    assert all(draft["timings"].values())
    # Citations come with the document title and the chunk text the operator can check.
    assert draft["citations"] and all(c["title"] and c["text"] for c in draft["citations"])


def test_list_queries_do_not_grow_with_tickets(staff_api, live_draft, django_assert_max_num_queries, customer):

    with django_assert_max_num_queries(8) as few:
        staff_api.get("/api/ops/tickets/")
    for i in range(5):
        inquiry(customer, subject=f"배송 {i}")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert staff_api.get("/api/ops/tickets/").json()["count"] == 6


def test_apply_edited_and_tags_through_the_api(staff_api, desk_user, live_draft, desk_tags):
    final = live_draft.answer + " 감사합니다."
    response = staff_api.post(
        f"/api/ops/drafts/{live_draft.pk}/apply/", {"final_body": final, "tags": ["결제오류"]}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["applied"], body["final_body"], body["decided_by"]) == (
        "APPLIED",
        "EDITED",
        final,
        desk_user.username,
    )
    assert 0 < body["edit_ratio"] < 0.2
    assert TicketMessage.objects.get(ticket_id=live_draft.ticket_id, author_type="OPERATOR").body == final
    again = staff_api.post(f"/api/ops/drafts/{live_draft.pk}/apply/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "draft_not_live"


def test_apply_unchanged_and_reject_through_the_api(staff_api, live_draft, customer, desk_tags):
    assert staff_api.post(f"/api/ops/drafts/{live_draft.pk}/apply/", {}, format="json").json()["applied"] == "UNCHANGED"
    from tickets.services import ticket_message_add

    ticket_message_add(ticket=live_draft.ticket, body="아직도 안 돼요", author=customer.user)
    newer = Draft.objects.get(ticket_id=live_draft.ticket_id, status="GENERATED")
    response = staff_api.post(f"/api/ops/drafts/{newer.pk}/reject/", {"tags": ["재문의"]}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "REJECTED"
    assert set(live_draft.ticket.tags.values_list("name", flat=True)) == {"재문의"}
    assert staff_api.post("/api/ops/drafts/999999/reject/", {}, format="json").status_code == 404


def test_approval_decision_through_the_api(staff_api, desk_user):
    record = refund_requested(reason="사이즈가 달라요(상품하자)", category="DEFECT")
    number = record.number
    response = staff_api.post(
        f"/api/ops/actions/{number}/decide/", {"approve": True, "note": "사진 확인"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["decided_by"]) == ("APPROVED", desk_user.username)
    assert ActionRecord.objects.get(pk=record.pk).status == "APPROVED"
    again = staff_api.post(f"/api/ops/actions/{number}/decide/", {"approve": False}, format="json")
    assert again.status_code == 409
    assert staff_api.post(f"/api/ops/actions/{number}/decide/", {}, format="json").status_code == 400


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/ops/tickets/"),
        ("get", "/api/ops/tickets/T00001/"),
        ("post", "/api/ops/drafts/1/apply/"),
        ("post", "/api/ops/drafts/1/reject/"),
        ("post", "/api/ops/actions/A00001/decide/"),
    ],
)
def test_customers_and_anonymous_cannot_reach_ops(customer_api, live_draft, method, path):
    assert getattr(customer_api, method)(path, {}, format="json").status_code == 403
    assert getattr(APIClient(), method)(path, {}, format="json").status_code == 401
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"

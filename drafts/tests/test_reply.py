"""The operator's own reply (tickets.services.ticket_reply_send) where drafts take part: after a rejected draft,
with drafts off, on a failed draft; the money-claim guard drafts registers; the live draft an own reply rejects
(drafts' reply-sent hook); the admin reply box and the draft panel's one send button. The reply's own rules
(permission, closed tickets, a missing guard) are tested in tickets/tests/test_reply.py."""

import pytest
from django.urls import reverse

from drafts.models import Draft
from drafts.tests.support import inquiry
from tickets.models import Ticket, TicketMessage

pytestmark = pytest.mark.django_db(transaction=True)

PROMISE = "전액 환불이 승인되었습니다. 3영업일 안에 38,000원이 입금됩니다."
# No money words: the reply is not held by the money-claim guard for a customer with no refund on record.
OWN = "고객님, 카드사 점검 때문에 생긴 오류였습니다. 지금 다시 시도해 주세요."


def _reply(api, ticket, **data):
    return api.post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": OWN, **data}, format="json")


def _operator_messages(ticket):
    return list(
        TicketMessage.objects.filter(ticket=ticket, author_type="OPERATOR").values_list("body", "author__username")
    )


def test_own_reply_after_the_draft_is_rejected(desk_user, staff_api, live_draft, desk_tags):
    assert staff_api.post(f"/api/ops/drafts/{live_draft.pk}/reject/", {}, format="json").status_code == 200
    response = _reply(staff_api, live_draft.ticket, tags=["결제오류"])
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["message"]["author_type"], body["message"]["body"]) == ("ANSWERED", "OPERATOR", OWN)
    ticket = Ticket.objects.get(pk=live_draft.ticket_id)
    assert ticket.status == "ANSWERED"
    assert _operator_messages(ticket) == [(OWN, desk_user.username)]
    assert list(ticket.tags.values_list("name", flat=True)) == ["결제오류"]


def test_own_reply_with_drafts_off_and_close(desk_user, staff_api, customer, settings, offline_model):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = inquiry(customer)
    assert not Draft.objects.filter(ticket=ticket, status="GENERATED").exists()
    response = _reply(staff_api, ticket, close=True)
    assert response.status_code == 201, response.content
    ticket.refresh_from_db()
    assert ticket.status == "CLOSED" and _operator_messages(ticket) == [(OWN, desk_user.username)]
    again = _reply(staff_api, ticket)  # a closed ticket takes no reply
    assert (again.status_code, again.json()["code"]) == (409, "ticket_closed")


def test_own_reply_on_a_failed_draft(desk_user, staff_api, customer, scripted_model):
    from llm.testing import Fault

    scripted_model.handler = lambda body: Fault(500)
    ticket = inquiry(customer)
    assert (
        Draft.objects.filter(ticket=ticket).exclude(status="GENERATED").exists()
        or not Draft.objects.filter(ticket=ticket).exists()
    )
    response = _reply(staff_api, ticket)
    assert response.status_code == 201, response.content
    assert Ticket.objects.get(pk=ticket.pk).status == "ANSWERED"
    assert _operator_messages(ticket) == [(OWN, desk_user.username)]


def test_the_money_claim_guard_holds_on_own_replies(desk_user, staff_api, live_draft):
    ticket = live_draft.ticket
    held = _reply(staff_api, ticket, body=PROMISE)
    assert (held.status_code, held.json()["code"]) == (409, "reply_blocked")
    assert "전액 환불이 승인되었습니다." in held.json()["detail"]
    assert _operator_messages(ticket) == [] and Ticket.objects.get(pk=ticket.pk).status == "OPEN"
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"  # nothing changed

    sent = _reply(staff_api, ticket, body=PROMISE, override_reason="팀장 구두 승인, 처리 기록은 곧 입력")
    assert sent.status_code == 201, sent.content
    assert _operator_messages(ticket) == [(PROMISE, desk_user.username)]
    notes = list(TicketMessage.objects.filter(ticket=ticket, author_type="SYSTEM").values_list("body", flat=True))
    assert any("예외 발송" in n and "팀장 구두 승인" in n for n in notes)


def test_an_own_reply_rejects_the_live_draft_with_a_note(desk_user, staff_api, live_draft):
    assert _reply(staff_api, live_draft.ticket).status_code == 201
    draft = Draft.objects.get(pk=live_draft.pk)
    assert (draft.status, draft.decided_by.username) == ("REJECTED", desk_user.username)
    assert draft.events.filter(type="REJECTED", payload__reason="own_reply").count() == 1
    notes = TicketMessage.objects.filter(ticket=live_draft.ticket, author_type="SYSTEM").values_list("body", flat=True)
    assert any(f"D{draft.pk}" in n and "직접 답변" in n for n in notes)
    # The customer sees the reply, never the system notes.
    customer_view = live_draft.ticket.messages.exclude(author_type="SYSTEM")
    assert list(customer_view.values_list("author_type", flat=True)) == ["CUSTOMER", "OPERATOR"]


def _page(ticket_id):
    return reverse("admin:tickets_ticket_change", args=[ticket_id])


def test_admin_reply_box_after_reject(desk_user, operator_client, live_draft):
    ticket_id = live_draft.ticket_id
    page = operator_client.get(_page(ticket_id)).content.decode()
    assert 'id="cs-reply"' not in page  # the live draft's text box is the reply box
    operator_client.post(
        reverse("admin:tickets_ticket_draft_decide", args=[ticket_id, live_draft.pk]), {"decision": "reject"}
    )
    page = operator_client.get(_page(ticket_id)).content.decode()
    assert 'id="cs-reply"' in page
    blocked = operator_client.post(
        reverse("admin:tickets_ticket_reply", args=[ticket_id]), {"body": PROMISE}, follow=True
    )
    assert "보낼 수 없습니다" in blocked.content.decode()
    assert PROMISE in blocked.content.decode()  # the text comes back in the box, not lost
    operator_client.post(reverse("admin:tickets_ticket_reply", args=[ticket_id]), {"body": OWN, "close": "1"})
    ticket = Ticket.objects.get(pk=ticket_id)
    assert ticket.status == "CLOSED" and _operator_messages(ticket) == [(OWN, desk_user.username)]
    assert 'id="cs-reply"' not in operator_client.get(_page(ticket_id)).content.decode()


def test_the_send_button_sends_the_edited_text(desk_user, operator_client, live_draft):
    """The old highlighted "그대로 적용" button sent the draft and dropped the edit: now the box is sent."""
    edited = "고객님, 결제 오류를 확인했습니다. 카드사 점검이 끝나면 다시 시도해 주세요."
    operator_client.post(
        reverse("admin:tickets_ticket_draft_decide", args=[live_draft.ticket_id, live_draft.pk]),
        {"decision": "apply", "final_body": edited},
    )
    draft = Draft.objects.get(pk=live_draft.pk)
    assert (draft.status, draft.applied, draft.final_body) == ("APPLIED", "EDITED", edited)
    assert _operator_messages(draft.ticket) == [(edited, desk_user.username)]

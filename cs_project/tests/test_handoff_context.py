"""Handoffs keep the context: the ticket opened from chat carries the masked transcript as a system note
(operators see it, the customer's view does not), links both ways, stays one per conversation, and its draft
is built from the transcript."""

import json

import pytest
from django.urls import reverse

from drafts.models import Draft
from llm.testing import text_message, tool_calls_message
from orders.tests.factories import desk_operator
from tickets.models import Ticket, TicketMessage
from tickets.services import HANDOFF_TRANSCRIPT_TITLE

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = "010-1234-5678"


def _handoff(summary="상담원 연결 요청"):
    return tool_calls_message([("create_ticket", {"category": "상담원연결", "summary": summary})])


def _transcript(ticket):
    notes = TicketMessage.objects.filter(ticket=ticket, author_type="SYSTEM", body__startswith=HANDOFF_TRANSCRIPT_TITLE)
    return notes.get().body


def test_the_handoff_ticket_carries_the_masked_transcript_and_links_both_ways(customer_api, scripted_model, client):
    scripted_model.push(text_message("어떤 주문인지 알려 주세요."))
    first = customer_api.post("/api/chat/", {"message": f"운동화 밑창이 떨어졌어요. 연락처는 {PHONE}"}, format="json")
    conversation_id = first.json()["conversation_id"]
    scripted_model.push(_handoff("운동화 밑창 불량, 상담원 연결"), text_message("상담원에게 연결했습니다."))
    second = customer_api.post(
        "/api/chat/", {"message": "그냥 사람하고 얘기할래요", "conversation_id": conversation_id}, format="json"
    ).json()
    ticket = Ticket.objects.get()
    assert str(ticket.chat_conversation_id) == conversation_id
    assert second["tool_results"][0]["ticket_id"] == ticket.number

    transcript = _transcript(ticket)
    assert "고객: 운동화 밑창이 떨어졌어요." in transcript
    assert "AI 상담원: 어떤 주문인지 알려 주세요." in transcript
    assert "고객: 그냥 사람하고 얘기할래요" in transcript
    assert PHONE not in transcript and "[전화번호]" in transcript  # masked (common.redaction.redact)

    # The customer's view of the ticket shows no system note; the chat API links the ticket to the conversation.
    thread = customer_api.get(f"/api/tickets/{ticket.number}/").json()
    assert all(m["author_type"] != "SYSTEM" for m in thread["messages"])
    assert thread["chat_conversation_id"] == conversation_id

    # Operators see the transcript on the ticket page and a link to the conversation, and back.
    client.force_login(desk_operator())
    page = client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert HANDOFF_TRANSCRIPT_TITLE in page and "운동화 밑창이 떨어졌어요" in page
    conversation_url = reverse("admin:chat_conversation_change", args=[conversation_id])
    assert conversation_url in page
    back = client.get(conversation_url).content.decode()
    assert reverse("admin:tickets_ticket_change", args=[ticket.pk]) in back and ticket.number in back


def test_asking_again_returns_the_open_handoff_and_reopens_an_answered_one(customer_api, scripted_model):
    scripted_model.push(_handoff(), text_message("연결했습니다."))
    first = customer_api.post("/api/chat/", {"message": "상담원 연결해 주세요"}, format="json").json()
    conversation_id = first["conversation_id"]
    ticket = Ticket.objects.get()
    scripted_model.push(_handoff("다시 연결 요청"), text_message("이미 접수되어 있습니다."))
    again = customer_api.post(
        "/api/chat/", {"message": "아직이에요?", "conversation_id": conversation_id}, format="json"
    ).json()
    assert again["tool_results"][0]["ticket_id"] == ticket.number and Ticket.objects.count() == 1

    Ticket.objects.filter(pk=ticket.pk).update(status=Ticket.Status.ANSWERED)
    scripted_model.push(_handoff("답변 후 재요청"), text_message("다시 전달했습니다."))
    customer_api.post("/api/chat/", {"message": "답변이 부족해요", "conversation_id": conversation_id}, format="json")
    ticket.refresh_from_db()
    assert Ticket.objects.count() == 1 and ticket.status == "OPEN"  # back with a person, same ticket
    assert ticket.messages.filter(author_type="CUSTOMER").last().body == "답변 후 재요청"


def test_the_draft_for_a_handoff_is_built_from_the_transcript(customer_api, scripted_model):
    from llm.offline import respond

    scripted_model.handler = respond  # the built-in model behind the real HTTP wire: requests are recorded
    first = customer_api.post("/api/chat/", {"message": "텀블러 뚜껑이 깨져서 왔어요"}, format="json").json()
    before = len(scripted_model.requests)
    handoff = customer_api.post(
        "/api/chat/", {"message": "상담원 연결해 주세요", "conversation_id": first["conversation_id"]}, format="json"
    ).json()
    ticket = Ticket.objects.get()
    assert [r["ticket_id"] for r in handoff["tool_results"] if r["tool"] == "create_ticket"] == [ticket.number]
    # The draft pipeline's prompts (after the ticket's commit) carry the transcript as the request's context.
    later = [json.dumps(r, ensure_ascii=False) for r in scripted_model.requests[before:]]
    drafts_seen = [r for r in later if "상담원 연결 전 채팅 기록" in r]
    assert drafts_seen and all("텀블러 뚜껑이 깨져서 왔어요" in r for r in drafts_seen)
    assert Draft.objects.filter(ticket=ticket).exists()

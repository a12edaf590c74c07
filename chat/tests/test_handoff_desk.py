"""What a chat handoff tells the desk and the customer: a person asked for after the rules refused a refund is
높음 priority; outside business hours the reply ends with the code-built sentence saying when a person answers
(also when the model fails and the message becomes a ticket)."""

import pytest

from llm.testing import Fault
from orders.tests.factories import OrderFactory
from tickets.models import Ticket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("shop_hours")]

NOTICE = "지금은 운영시간(평일 09:00–18:00)이 아니어서 상담원이 8월 18일(화) 오전 9시부터 답변드립니다."


def say(api, message, conversation_id=None):
    body = {"message": message, **({"conversation_id": conversation_id} if conversation_id else {})}
    response = api.post("/api/chat/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_person_asked_for_after_a_refused_refund_gets_the_ticket_sooner(
    customer, customer_api, offline_model, settings
):
    settings.CS_NOW = "2026-08-14T10:00:00+09:00"  # open: no notice
    order = OrderFactory(customer=customer, delivered_days_ago=26)
    refused = say(customer_api, f"{order.order_id} 환불해 주세요 단순변심이에요")  # past the change-of-mind window
    assert [r["ok"] for r in refused["tool_results"] if r["tool"] == "request_refund"] == [False]
    body = say(customer_api, "상담원 연결해 주세요", refused["conversation_id"])
    ticket = Ticket.objects.get()
    assert (ticket.priority, ticket.category) == ("HIGH", "CALLBACK")
    created = ticket.events.get(type="CREATED").payload
    assert (created["priority"], created["rule"]) == ("HIGH", "refused_money_request")
    assert NOTICE not in body["reply"] and "운영시간" not in body["reply"]


def test_without_a_refusal_a_callback_is_normal(customer_api, offline_model, settings):
    settings.CS_NOW = "2026-08-14T10:00:00+09:00"
    say(customer_api, "상담원 연결해 주세요")
    assert Ticket.objects.get().priority == "NORMAL"


def test_outside_business_hours_the_reply_says_when_a_person_answers(customer_api, offline_model, settings):
    settings.CS_NOW = "2026-08-14T19:10:00+09:00"  # Friday evening; Monday is 광복절 대체공휴일
    body = say(customer_api, "상담원 연결해 주세요")
    assert body["reply"].endswith(NOTICE)
    assert body["reply"].count("운영시간") == 1


def test_a_model_failure_outside_business_hours_says_it_too(customer_api, scripted_model, settings):
    settings.CS_NOW = "2026-08-15T11:00:00+09:00"  # Saturday
    scripted_model.handler = lambda body: Fault(500)
    body = say(customer_api, "결제가 두 번 됐어요")
    ticket = Ticket.objects.get()
    assert ticket.source == "CHAT_FAILURE" and ticket.number in body["reply"]
    assert body["reply"].endswith(NOTICE)

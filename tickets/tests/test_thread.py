"""The customer's side of a ticket: operator replies are counted unread until the customer opens the thread;
a follow-up reopens it."""

import pytest

from accounts.tests.factories import token_client
from common.tests.factories import operator_with
from orders.tests.factories import CustomerFactory
from tickets.models import Ticket
from tickets.services import ticket_create, ticket_reply_add

pytestmark = pytest.mark.django_db


def _unread(api, number):
    return next(t["unread"] for t in api.get("/api/tickets/").json() if t["ticket_id"] == number)


def test_operator_reply_is_unread_until_the_thread_is_opened_then_the_customer_answers(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    customer = CustomerFactory()
    customer_api = token_client(customer.user)
    operator = operator_with("tickets.reply_ticket")
    ticket = ticket_create(
        customer=customer, category="배송", subject="배송 문의", body="언제 와요?", source="API", author=customer.user
    )
    assert _unread(customer_api, ticket.number) == 0
    ticket_reply_add(ticket=ticket, body="내일 도착 예정입니다.", actor=operator)
    assert _unread(customer_api, ticket.number) == 1
    requests = customer_api.get("/api/requests/").json()["tickets"]
    assert requests[0]["unread"] == 1  # the chat page's sidebar reads the same count

    thread = customer_api.get(f"/api/tickets/{ticket.number}/").json()
    assert [(m["author_type"], m["body"]) for m in thread["messages"]] == [
        ("CUSTOMER", "언제 와요?"),
        ("OPERATOR", "내일 도착 예정입니다."),
    ]
    assert _unread(customer_api, ticket.number) == 0

    answer = customer_api.post(f"/api/tickets/{ticket.number}/messages/", {"body": "감사합니다"}, format="json")
    assert answer.status_code == 201
    assert Ticket.objects.get(pk=ticket.pk).status == "OPEN"
    ticket_reply_add(ticket=ticket, body="좋은 하루 되세요.", actor=operator, close=True)
    assert _unread(customer_api, ticket.number) == 1
    assert Ticket.objects.get(pk=ticket.pk).status == "CLOSED"

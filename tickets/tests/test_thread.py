"""The customer's side of a ticket: operator replies are counted unread until the customer opens the thread;
a follow-up reopens it."""

import pytest
from django.contrib.auth import get_user_model

from orders.models import Customer
from tickets.models import Ticket
from tickets.services import ticket_create, ticket_reply_add

pytestmark = pytest.mark.django_db


def _unread(api, number):
    return next(t["unread"] for t in api.get("/api/tickets/").json() if t["ticket_id"] == number)


def test_operator_reply_is_unread_until_the_thread_is_opened_then_the_customer_answers(c003_api, settings, shop):
    settings.CS_AI_DRAFTS_ENABLED = False
    c003 = Customer.objects.get(pk="C003")
    operator = get_user_model().objects.get(username="operator")
    ticket = ticket_create(
        customer=c003, category="배송", subject="배송 문의", body="언제 와요?", source="API", author=c003.user
    )
    assert _unread(c003_api, ticket.number) == 0
    ticket_reply_add(ticket=ticket, body="내일 도착 예정입니다.", actor=operator)
    assert _unread(c003_api, ticket.number) == 1
    requests = c003_api.get("/api/requests/").json()["tickets"]
    assert requests[0]["unread"] == 1  # the chat page's sidebar reads the same count

    thread = c003_api.get(f"/api/tickets/{ticket.number}/").json()
    assert [(m["author_type"], m["body"]) for m in thread["messages"]] == [
        ("CUSTOMER", "언제 와요?"),
        ("OPERATOR", "내일 도착 예정입니다."),
    ]
    assert _unread(c003_api, ticket.number) == 0

    answer = c003_api.post(f"/api/tickets/{ticket.number}/messages/", {"body": "감사합니다"}, format="json")
    assert answer.status_code == 201
    assert Ticket.objects.get(pk=ticket.pk).status == "OPEN"
    ticket_reply_add(ticket=ticket, body="좋은 하루 되세요.", actor=operator, close=True)
    assert _unread(c003_api, ticket.number) == 1
    assert Ticket.objects.get(pk=ticket.pk).status == "CLOSED"

"""Customer inquiries through the API: open, follow up, read operator replies. Drafts start after commit."""

import pytest
from rest_framework.test import APIClient

from drafts.models import Draft
from drafts.tests.support import inquiry
from orders.tests.factories import CustomerFactory, OrderFactory
from tickets.models import Ticket, TicketMessage

pytestmark = pytest.mark.django_db(transaction=True)


def test_customer_opens_an_inquiry_and_a_draft_is_prepared_after_commit(customer, customer_api, offline_model):
    order = OrderFactory(customer=customer, delivered_days_ago=2)
    response = customer_api.post(
        "/api/tickets/",
        {"category": "교환/반품", "body": "반품한 운동화 환불 언제 돼요?", "order_id": order.pk},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["ticket_id"].startswith("T") and body["category"] == "EXCHANGE_RETURN"
    assert body["subject"] == "반품한 운동화 환불 언제 돼요?" and body["status"] == "OPEN"
    assert [m["author_type"] for m in body["messages"]] == ["CUSTOMER"]
    ticket = Ticket.objects.get()
    assert (ticket.source, ticket.order_id, ticket.customer_id) == ("API", order.pk, customer.customer_id)
    draft = Draft.objects.get(ticket=ticket)
    assert draft.status == "GENERATED" and draft.source_message_id == ticket.messages.get().pk


def test_follow_up_reopens_the_ticket_and_supersedes_the_draft(customer_api, offline_model):
    ticket_id = customer_api.post(
        "/api/tickets/", {"category": "DELIVERY", "body": "배송 언제 와요?"}, format="json"
    ).json()["ticket_id"]
    ticket = Ticket.objects.get()
    Ticket.objects.filter(pk=ticket.pk).update(status=Ticket.Status.ANSWERED)
    response = customer_api.post(f"/api/tickets/{ticket_id}/messages/", {"body": "아직 안 왔어요."}, format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "OPEN"
    assert [m["body"] for m in response.json()["messages"]] == ["배송 언제 와요?", "아직 안 왔어요."]
    assert sorted(Draft.objects.filter(ticket=ticket).values_list("status", flat=True)) == ["GENERATED", "SUPERSEDED"]


def test_operator_replies_are_visible_to_the_customer_but_system_notes_are_not(customer_api, offline_model):
    ticket_id = customer_api.post("/api/tickets/", {"body": "문의합니다"}, format="json").json()["ticket_id"]
    ticket = Ticket.objects.get()
    TicketMessage.objects.create(ticket=ticket, author_type="OPERATOR", body="확인해 드렸습니다.")
    TicketMessage.objects.create(ticket=ticket, author_type="SYSTEM", body="내부 메모")
    messages = customer_api.get(f"/api/tickets/{ticket_id}/").json()["messages"]
    assert [(m["author_type"], m["body"]) for m in messages] == [
        ("CUSTOMER", "문의합니다"),
        ("OPERATOR", "확인해 드렸습니다."),
    ]


@pytest.mark.parametrize(
    "payload, field",
    [
        ({}, "body"),
        ({"body": ""}, "body"),
        ({"body": "   "}, "body"),
        ({"body": "가" * 4001}, "body"),
        ({"body": "질문", "category": "없는분류"}, "category"),
        ({"body": "질문", "subject": "가" * 201}, "subject"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error_and_stores_nothing(customer_api, payload, field):
    response = customer_api.post("/api/tickets/", payload, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid" and field in response.json()["errors"]
    assert not Ticket.objects.exists()


def test_order_of_another_customer_is_refused(customer_api):
    response = customer_api.post("/api/tickets/", {"body": "질문", "order_id": OrderFactory().pk}, format="json")
    assert response.status_code == 404
    assert not Ticket.objects.exists()


def test_customers_cannot_post_to_someone_elses_or_a_closed_ticket(customer, customer_api, offline_model):
    other = inquiry(CustomerFactory(), "언제?")
    assert (
        customer_api.post(f"/api/tickets/{other.number}/messages/", {"body": "끼어들기"}, format="json").status_code
        == 404
    )
    mine = customer_api.post("/api/tickets/", {"body": "질문"}, format="json").json()["ticket_id"]
    Ticket.objects.filter(customer=customer).update(status=Ticket.Status.CLOSED)
    response = customer_api.post(f"/api/tickets/{mine}/messages/", {"body": "추가"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "ticket_closed"
    assert TicketMessage.objects.filter(body__in=["끼어들기", "추가"]).count() == 0


def test_the_message_is_stored_even_when_the_model_is_down(customer_api, scripted_model):
    from llm.testing import Fault

    scripted_model.handler = lambda body: Fault(500)
    response = customer_api.post("/api/tickets/", {"body": "결제가 안 돼요", "category": "결제"}, format="json")
    assert response.status_code == 201
    ticket = Ticket.objects.get()
    assert ticket.messages.get().body == "결제가 안 돼요"
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.draft_state) == ("FAILED", "FAILED")


def test_anonymous_requests_are_refused():
    assert APIClient().post("/api/tickets/", {"body": "x"}, format="json").status_code == 401

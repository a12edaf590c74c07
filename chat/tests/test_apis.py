"""Customer API: authentication, ownership, validation."""

import uuid

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from chat.models import ChatMessage
from llm.testing import text_message
from orders.models import Customer
from testsupport.api import api_as

pytestmark = pytest.mark.django_db


def test_token_login_and_unauthenticated_requests(shop):
    client = APIClient()
    assert client.get("/api/orders/").status_code == 401
    bad = client.post("/api/auth/token/", {"username": "c003", "password": "wrong"}, format="json")
    assert bad.status_code == 400
    token = client.post("/api/auth/token/", {"username": "c003", "password": "demo1234"}, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/orders/").status_code == 200


def test_staff_without_customer_record_is_refused(shop):
    client = api_as(get_user_model().objects.get(username="operator"))
    response = client.get("/api/orders/")
    assert response.status_code == 403 and "고객 계정" in response.json()["detail"]


def test_orders_are_own_with_status_code_and_label(c003_api):
    orders = c003_api.get("/api/orders/").json()
    assert {o["order_id"] for o in orders} == set(
        Customer.objects.get(pk="C003").orders.values_list("order_id", flat=True)
    )
    sneakers = next(o for o in orders if o["order_id"] == "HR20260721001")
    assert (sneakers["status"], sneakers["status_display"], sneakers["product_name"]) == (
        "DELIVERED",
        "배송완료",
        "쿠션 운동화",
    )


def test_product_options_with_stock(c003_api):
    product = c003_api.get("/api/products/P001/").json()
    options = {o["label"]: (o["stock"], o["in_stock"]) for o in product["options"]}
    assert options["블랙/260"] == (3, True) and options["블랙/270"] == (0, False)
    assert c003_api.get("/api/products/NOPE/").status_code == 404


@pytest.mark.parametrize(
    "payload, fragment",
    [
        ({"message": ""}, "비어"),
        ({"message": "   "}, "비어"),
        ({"message": "가" * 4001}, "4,000자"),
        ({"message": 123}, "문자열"),
        ({"message": ["a"]}, "문자열"),
        ({"message": None}, "비어"),
        ({}, "필요"),
        ({"message": "안녕", "conversation_id": "not-a-uuid"}, "UUID"),
    ],
)
def test_bad_chat_input_is_a_clear_400_and_nothing_is_stored(c003_api, scripted_model, payload, fragment):
    response = c003_api.post("/api/chat/", payload, format="json")
    assert response.status_code == 400
    assert fragment in str(response.json())
    assert not ChatMessage.objects.exists()
    assert scripted_model.requests == []


def test_4000_characters_is_accepted(c003_api, scripted_model):
    scripted_model.push(text_message("네"))
    assert c003_api.post("/api/chat/", {"message": "가" * 4000}, format="json").status_code == 200


def test_conversations_are_own_only(c003_api, scripted_model, shop):
    scripted_model.push(text_message("안녕하세요"), text_message("또 만나요"))
    conversation_id = c003_api.post("/api/chat/", {"message": "안녕"}, format="json").json()["conversation_id"]
    mine = c003_api.get(f"/api/chat/{conversation_id}/").json()
    assert [(m["role"], m["content"]) for m in mine["messages"]] == [("customer", "안녕"), ("assistant", "안녕하세요")]

    other = api_as(Customer.objects.get(pk="C001").user)
    assert other.get(f"/api/chat/{conversation_id}/").status_code == 404
    assert other.get(f"/api/chat/{uuid.uuid4()}/").status_code == 404
    hijack = other.post("/api/chat/", {"message": "끼어들기", "conversation_id": conversation_id}, format="json")
    assert hijack.status_code == 404
    assert ChatMessage.objects.filter(content="끼어들기").count() == 0


def test_tickets_are_own_only_and_hide_system_notes(c003_api, shop):
    from tickets.models import Ticket, TicketMessage
    from tickets.services import ticket_create

    c003 = Customer.objects.get(pk="C003")
    ticket = ticket_create(
        customer=c003,
        category="결제",
        subject="결제 오류",
        body="결제가 안 돼요",
        source=Ticket.Source.API,
        author=c003.user,
    )
    TicketMessage.objects.create(ticket=ticket, author_type="SYSTEM", body="내부 메모")
    TicketMessage.objects.create(ticket=ticket, author_type="OPERATOR", body="확인해 보겠습니다")
    listed = c003_api.get("/api/tickets/").json()
    assert [t["ticket_id"] for t in listed] == [ticket.number]
    detail = c003_api.get(f"/api/tickets/{ticket.number}/").json()
    assert [m["body"] for m in detail["messages"]] == ["결제가 안 돼요", "확인해 보겠습니다"]
    other = api_as(Customer.objects.get(pk="C001").user)
    assert other.get(f"/api/tickets/{ticket.number}/").status_code == 404
    assert other.get("/api/tickets/").json() == []


def test_requests_query_count_is_constant(c003_api, django_assert_max_num_queries):
    from chat.tools import make_action_tools

    tools = make_action_tools(Customer.objects.get(pk="C003"))
    tools.call("request_refund", {"order_id": "HR20260726002"})
    with django_assert_max_num_queries(10) as few:
        c003_api.get("/api/requests/")
    tools.call("request_refund", {"order_id": "HR20260628003", "reason_category": "상품하자"})
    tools.call("create_ticket", {"summary": "문의"})
    with django_assert_max_num_queries(len(few.captured_queries)):
        c003_api.get("/api/requests/")

"""Chat history: GET /api/chat/ lists the customer's own conversations, newest first, and each reopens."""

import pytest
from rest_framework.test import APIClient

from accounts.tests.factories import token_client
from llm.testing import text_message
from orders.tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db


def test_history_lists_own_conversations_newest_first_and_reopens_them(customer, customer_api, scripted_model):
    scripted_model.push(text_message("네, 확인할게요"), text_message("네"), text_message("다른 대화"))
    first = customer_api.post("/api/chat/", {"message": "운동화 배송 언제 와요?\n두 번째 줄"}, format="json").json()
    customer_api.post("/api/chat/", {"message": "고마워요", "conversation_id": first["conversation_id"]}, format="json")
    second = customer_api.post("/api/chat/", {"message": "환불하고 싶어요"}, format="json").json()

    listing = customer_api.get("/api/chat/")
    assert listing.status_code == 200
    rows = [(c["conversation_id"], c["first_line"], c["message_count"]) for c in listing.json()]
    assert rows == [
        (second["conversation_id"], "환불하고 싶어요", 2),
        (first["conversation_id"], "운동화 배송 언제 와요?", 4),
    ]

    # A new login (a new token, an empty page) reopens the older conversation from the list.
    again = token_client(customer.user)
    reopened = again.get(f"/api/chat/{first['conversation_id']}/").json()
    assert [m["content"] for m in reopened["messages"]][:2] == ["운동화 배송 언제 와요?\n두 번째 줄", "네, 확인할게요"]


def test_history_never_lists_another_customers_conversations(customer_api, scripted_model):
    scripted_model.push(text_message("네"))
    mine = customer_api.post("/api/chat/", {"message": "내 대화"}, format="json").json()["conversation_id"]
    other = token_client(CustomerFactory().user)
    assert other.get("/api/chat/").json() == []
    assert other.get(f"/api/chat/{mine}/").status_code == 404
    assert APIClient().get("/api/chat/").status_code == 401

"""Cost bounds: one chat message cannot fan out into many tickets or unbounded model calls.

Driven through the real API and the real openai client against a scripted (hostile) model."""

import uuid

import pytest
from django.core.cache import cache, caches
from django.db import IntegrityError, transaction

from chat.agent import MAX_CALLS_PER_ROUND, MAX_ROUNDS
from chat.models import ChatMessage
from common.apis import TicketMessageThrottle
from common.budget import model_budget_charge
from common.errors import RateLimited
from llm.models import LLMCall
from llm.testing import Fault, text_message, tool_calls_message
from tickets.models import Ticket

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()


def ticket_calls(n: int) -> dict:
    return tool_calls_message([("create_ticket", {"category": "상담원연결", "summary": f"연결 {i}"}) for i in range(n)])


def test_a_model_asking_for_sixteen_tickets_in_one_turn_opens_one(customer_api, scripted_model):
    # The finding: 4 rounds x 4 create_ticket calls made 16 tickets from one POST /api/chat/.
    scripted_model.push(*[ticket_calls(MAX_CALLS_PER_ROUND) for _ in range(MAX_ROUNDS)])
    response = customer_api.post("/api/chat/", {"message": "상담원 연결해 주세요"}, format="json")
    assert response.status_code == 200
    assert Ticket.objects.count() == 1
    ticket = Ticket.objects.get()
    results = [r for r in response.json()["tool_results"] if r["tool"] == "create_ticket"]
    assert len(results) == MAX_ROUNDS * MAX_CALLS_PER_ROUND
    assert {r["ticket_id"] for r in results} == {ticket.number} and all(r["ok"] for r in results)
    assert len(scripted_model.requests) == MAX_ROUNDS  # the round bound still holds


def test_asking_again_in_the_same_conversation_returns_the_open_handoff_ticket(customer_api, scripted_model):
    scripted_model.push(ticket_calls(1), text_message("접수했습니다."))
    first = customer_api.post("/api/chat/", {"message": "상담원 연결"}, format="json").json()
    scripted_model.push(ticket_calls(1), text_message("이미 접수되어 있습니다."))
    second = customer_api.post(
        "/api/chat/", {"message": "다시 연결해 줘요", "conversation_id": first["conversation_id"]}, format="json"
    ).json()
    first_id = first["tool_results"][0]["ticket_id"]
    assert second["tool_results"][0] == {**first["tool_results"][0], "ticket_id": first_id}
    assert Ticket.objects.count() == 1
    assert str(Ticket.objects.get().chat_conversation_id) == first["conversation_id"]
    # A new conversation is a new handoff.
    scripted_model.push(ticket_calls(1), text_message("접수했습니다."))
    third = customer_api.post("/api/chat/", {"message": "상담원 연결"}, format="json").json()
    assert third["tool_results"][0]["ticket_id"] != first_id
    assert Ticket.objects.count() == 2


def test_a_closed_handoff_ticket_lets_the_conversation_open_a_new_one(customer_api, scripted_model):
    scripted_model.push(ticket_calls(1), text_message("접수했습니다."))
    first = customer_api.post("/api/chat/", {"message": "상담원 연결"}, format="json").json()
    Ticket.objects.update(status=Ticket.Status.CLOSED)
    scripted_model.push(ticket_calls(1), text_message("접수했습니다."))
    customer_api.post(
        "/api/chat/", {"message": "또 연결", "conversation_id": first["conversation_id"]}, format="json"
    ).json()
    assert list(Ticket.objects.order_by("id").values_list("status", flat=True)) == ["CLOSED", "OPEN"]


def test_the_database_refuses_a_second_open_handoff_ticket_for_a_conversation(customer):
    key = uuid.uuid4()
    Ticket.objects.create(customer=customer, subject="a", chat_conversation_id=key)
    with pytest.raises(IntegrityError), transaction.atomic():
        Ticket.objects.create(customer=customer, subject="b", chat_conversation_id=key, status=Ticket.Status.ANSWERED)
    Ticket.objects.create(customer=customer, subject="c", chat_conversation_id=key, status=Ticket.Status.CLOSED)
    Ticket.objects.create(customer=customer, subject="d")  # tickets without a conversation are not limited
    Ticket.objects.create(customer=customer, subject="e")


def test_model_failures_in_one_conversation_share_one_ticket(customer_api, scripted_model):
    scripted_model.push(Fault(500), Fault(500))
    first = customer_api.post("/api/chat/", {"message": "첫 질문"}, format="json").json()
    scripted_model.push(Fault(500), Fault(500))
    customer_api.post(
        "/api/chat/", {"message": "두 번째 질문", "conversation_id": first["conversation_id"]}, format="json"
    )
    ticket = Ticket.objects.get()
    assert list(ticket.messages.values_list("body", flat=True)) == ["첫 질문", "두 번째 질문"]
    assert ChatMessage.objects.filter(outcome=ChatMessage.Outcome.MODEL_FAILED).count() == 2


def test_over_the_minute_budget_the_chat_answers_429_in_korean_and_stores_nothing(
    customer_api, scripted_model, settings
):
    settings.CS_MODEL_BUDGET_PER_MINUTE = 3
    scripted_model.push(text_message("네"), text_message("네"), text_message("네"))
    for _ in range(3):
        assert customer_api.post("/api/chat/", {"message": "안녕"}, format="json").status_code == 200
    stored = ChatMessage.objects.count()
    response = customer_api.post("/api/chat/", {"message": "안녕"}, format="json")
    assert response.status_code == 429
    assert response.json() == {"code": "model_budget_exceeded", "detail": response.json()["detail"]}
    assert "잠시 후" in response.json()["detail"]
    assert 1 <= int(response["Retry-After"]) <= 60
    assert ChatMessage.objects.count() == stored
    assert LLMCall.objects.count() == 3


def test_a_turn_that_runs_out_of_budget_stops_calling_the_model(customer_api, scripted_model, settings):
    settings.CS_MODEL_BUDGET_PER_MINUTE = 2
    scripted_model.push(*[tool_calls_message([("get_my_orders", {})]) for _ in range(MAX_ROUNDS)])
    response = customer_api.post("/api/chat/", {"message": "주문 보여줘"}, format="json")
    assert response.status_code == 200
    assert len(scripted_model.requests) == 2
    assert ChatMessage.objects.get(role="assistant").outcome == ChatMessage.Outcome.BOUNDED


def test_day_budget_counts_inquiries_and_follow_ups_and_says_tomorrow(customer_api, settings):
    settings.CS_MODEL_BUDGET_PER_DAY = 8
    settings.CS_MODEL_BUDGET_DRAFT_COST = 4
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket_id = customer_api.post("/api/tickets/", {"body": "문의"}, format="json").json()["ticket_id"]
    assert customer_api.post(f"/api/tickets/{ticket_id}/messages/", {"body": "추가"}, format="json").status_code == 201
    response = customer_api.post(f"/api/tickets/{ticket_id}/messages/", {"body": "또 추가"}, format="json")
    assert response.status_code == 429 and "내일" in response.json()["detail"]
    assert int(response["Retry-After"]) <= 24 * 3600
    assert Ticket.objects.get().messages.count() == 2


def test_follow_up_flood_on_a_ticket_is_throttled(customer_api, settings, monkeypatch):
    settings.CS_AI_DRAFTS_ENABLED = False
    # DRF reads the rates once at import; this is the test settings' value for the scope.
    monkeypatch.setitem(TicketMessageThrottle.THROTTLE_RATES, "ticket_message", "3/min")
    ticket_id = customer_api.post("/api/tickets/", {"body": "문의"}, format="json").json()["ticket_id"]
    codes = [
        customer_api.post(f"/api/tickets/{ticket_id}/messages/", {"body": f"추가 {i}"}, format="json").status_code
        for i in range(5)
    ]
    assert codes == [201, 201, 201, 429, 429]
    last = customer_api.post(f"/api/tickets/{ticket_id}/messages/", {"body": "x"}, format="json")
    assert last.json()["code"] == "throttled" and last.has_header("Retry-After")
    assert Ticket.objects.get().messages.count() == 4


def test_budget_fails_open_when_the_cache_is_down(customer_api, scripted_model, settings):
    settings.CACHES = {"default": {"BACKEND": "common.cache.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}}
    settings.CS_MODEL_BUDGET_PER_MINUTE = 0  # would refuse everything, were it reachable
    scripted_model.push(text_message("네"))
    response = customer_api.post("/api/chat/", {"message": "안녕"}, format="json")
    assert response.status_code == 200 and response.json()["reply"] == "네"


def test_budget_refusal_counts_nothing(settings):
    settings.CS_MODEL_BUDGET_PER_MINUTE = 5
    settings.CS_MODEL_BUDGET_PER_DAY = 100
    model_budget_charge(customer_id="C1", calls=4, now=1_000_020.0)
    with pytest.raises(RateLimited) as refused:
        model_budget_charge(customer_id="C1", calls=2, now=1_000_030.0)
    assert refused.value.retry_after == 60 - 1_000_030 % 60
    model_budget_charge(customer_id="C1", calls=1, now=1_000_030.0)  # the refused 2 were not counted
    model_budget_charge(customer_id="C1", calls=5, now=1_000_080.0)  # next minute
    model_budget_charge(customer_id="C2", calls=5, now=1_000_030.0)  # per customer


@pytest.mark.redis
def test_budget_is_shared_by_processes_through_redis(settings):
    """Two cache clients (as two gunicorn workers have) on one Redis see one counter."""
    import os

    url = os.environ.get("CS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    settings.CACHES = {
        "default": {"BACKEND": "common.cache.RedisCache", "LOCATION": url},
        "other": {"BACKEND": "common.cache.RedisCache", "LOCATION": url},
    }
    settings.CS_MODEL_BUDGET_PER_MINUTE = 3
    customer = f"C-{uuid.uuid4().hex[:8]}"
    model_budget_charge(customer_id=customer, calls=2, now=2_000_000.0)
    keys = [k for k in caches["other"]._cache.get_client().keys(f"*model-budget:{customer}:*")]
    assert len(keys) == 2
    with pytest.raises(RateLimited):
        model_budget_charge(customer_id=customer, calls=2, now=2_000_001.0)
    for key in keys:
        caches["other"]._cache.get_client().delete(key)

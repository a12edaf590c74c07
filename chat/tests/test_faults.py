"""Model faults: the fallback model is tried once; then an apology and a ticket. The message is kept."""

import pytest

from chat.models import ChatMessage
from llm.models import LLMCall
from llm.testing import Fault, Hang, Malformed, text_message
from tickets.models import Ticket

pytestmark = pytest.mark.django_db

FAULTS = {
    "500": Fault(500),
    "429": Fault(429),
    "timeout": Hang(3),
    "malformed": Malformed(b"<html>bad gateway</html>"),
}


@pytest.fixture
def fast_timeout(settings, scripted_model):
    settings.CS_LLM_TIMEOUT_S = 0.5
    from llm.client import clear_client_cache

    clear_client_cache()
    return scripted_model


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_fault_then_fallback_answers(customer_api, fast_timeout, fault):
    fast_timeout.push(fault, text_message("대체 모델이 답합니다."))
    response = customer_api.post("/api/chat/", {"message": "안녕하세요"}, format="json")
    assert response.json()["reply"] == "대체 모델이 답합니다."
    assert fast_timeout.models_seen == ["fast-model", "strong-model"]
    assert list(LLMCall.objects.order_by("id").values_list("outcome", "is_fallback")) == [
        ("ERROR", False),
        ("OK", True),
    ]
    assert ChatMessage.objects.filter(role="customer", content="안녕하세요").count() == 1


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_fault_on_both_models_ends_in_apology_and_ticket(customer_api, fast_timeout, fault):
    fast_timeout.push(fault, fault)
    text = "결제가 두 번 됐어요. 확인 부탁드립니다."
    response = customer_api.post("/api/chat/", {"message": text}, format="json")
    assert response.status_code == 200
    body = response.json()
    ticket = Ticket.objects.get()
    assert ticket.source == "CHAT_FAILURE" and ticket.messages.get().body == text
    assert ticket.number in body["reply"] and "죄송합니다" in body["reply"]
    assert body["tool_results"] == [
        {
            "tool": "create_ticket",
            "tool_label": "상담 요청 접수",
            "ok": True,
            "ticket_id": ticket.number,
            "status": "OPEN",
            "status_display": "접수",
        }
    ]
    assert len(fast_timeout.requests) == 2  # no hidden SDK retries: one primary, one fallback
    assert ChatMessage.objects.filter(role="customer", content=text).count() == 1
    assert ChatMessage.objects.get(role="assistant").outcome == "MODEL_FAILED"


@pytest.mark.django_db(transaction=True)
def test_message_is_stored_before_the_model_is_called(customer_api, scripted_model):
    from django.db import connection

    seen = []

    def handler(body):
        # The model server runs in another thread with its own connection: it sees only committed rows.
        seen.append(ChatMessage.objects.filter(role="customer", content="먼저 저장되나요?").exists())
        connection.close()
        return text_message("네")

    scripted_model.handler = handler
    customer_api.post("/api/chat/", {"message": "먼저 저장되나요?"}, format="json")
    assert seen == [True]

"""The operator-only diagnosis inside the pipeline: code caps the verdict and redacts what the model wrote,
whatever the model says. The model here is hostile: it over-claims and leaks."""

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from common.redaction import find_sensitive
from drafts.models import Draft
from drafts.tests.support import inquiry
from llm.offline import respond, structured_name
from tickets.models import Ticket, TicketMessage

pytestmark = pytest.mark.django_db(transaction=True)

SEOUL = ZoneInfo("Asia/Seoul")
LEAKS = (
    "고객 010-5523-1007, mina.kim@example.com, 카드 4111 1111 1111 1111, Authorization: Bearer abcdef123456789, "
    'http://payment-svc.internal:8080/v1/charge 에서 Traceback (most recent call last):\n  File "pay.py", line 3'
)


@pytest.fixture
def leaky_model(scripted_model):
    def handler(body):
        message = respond(body)
        if structured_name(body) == "diagnosis":
            out = json.loads(message["content"])
            out["verdict"] = "FAILURE_POINT_IDENTIFIED"  # over-claims, whatever the evidence
            out["interpretation"] = f"결제 서버 장애로 확정. {LEAKS}"
            out["checks"] = [f"로그 확인 {LEAKS}"]
            for fact in out["observed_facts"]:
                fact["fact"] += f" {LEAKS}"
            message = {**message, "content": json.dumps(out, ensure_ascii=False)}
        return message

    scripted_model.handler = handler
    return scripted_model


def _inquiry_at(customer_id: str, at: datetime, body: str) -> Draft:
    from django.db import transaction

    from orders.models import Customer

    customer = Customer.objects.select_related("user").get(pk=customer_id)
    with transaction.atomic():  # placed at the story's time before the pipeline reads it (as seed_demo does)
        ticket = inquiry(customer, body, category="오류", subject="오류")
        TicketMessage.objects.filter(ticket=ticket).update(created_at=at)
        Ticket.objects.filter(pk=ticket.pk).update(created_at=at)
    return Draft.objects.get(ticket=ticket)


@pytest.mark.parametrize(
    ("customer_id", "at", "verdict"),
    [
        ("C005", datetime(2026, 7, 26, 14, 10, tzinfo=SEOUL), "FAILURE_POINT_IDENTIFIED"),  # error request logs
        ("C007", datetime(2026, 7, 27, 9, 40, tzinfo=SEOUL), "PARTIAL_EVIDENCE"),  # usage events only: capped
        ("C008", datetime(2026, 7, 27, 11, 20, tzinfo=SEOUL), "INSUFFICIENT"),  # only events before the window
    ],
)
def test_verdict_is_capped_by_code_and_nothing_sensitive_is_stored(
    shop_knowledge, leaky_model, customer_id, at, verdict
):
    draft = _inquiry_at(customer_id, at, "앱이 이상해요. 안 돼요.")
    assert draft.diagnosis_state == "DONE"
    assert draft.diagnosis["verdict"] == verdict
    assert draft.diagnosis["model_verdict"] == "FAILURE_POINT_IDENTIFIED"
    stored = json.dumps(draft.diagnosis, ensure_ascii=False)
    assert find_sensitive(stored) == []
    for leaked in (
        "010-5523-1007",
        "mina.kim@example.com",
        "4111 1111 1111 1111",
        "abcdef123456789",
        "payment-svc.internal",
        "pay.py",
    ):
        assert leaked not in stored
    # Operator-only: none of it reaches the customer's draft text.
    assert "FAILURE_POINT" not in draft.answer and "결제 서버 장애로 확정" not in draft.answer

"""No customer phone number or e-mail address ever reaches the model."""

import json

import pytest

from llm.testing import text_message, tool_calls_message
from orders.models import Customer

pytestmark = pytest.mark.django_db


def test_no_phone_or_email_in_any_request_to_the_model(c003_api, scripted_model):
    c003 = Customer.objects.get(pk="C003")
    scripted_model.push(
        tool_calls_message([("get_my_orders", {}), ("get_my_requests", {})]),
        text_message("주문을 확인했습니다."),
        tool_calls_message([("create_ticket", {"category": "상담원연결", "summary": "전화 요청"})]),
        text_message("상담원에게 연결해 드리겠습니다."),
    )
    c003_api.post("/api/chat/", {"message": "제 주문 알려 주세요"}, format="json")
    # The customer types their own contact details: they are masked before the model sees them.
    c003_api.post(
        "/api/chat/",
        {"message": f"상담원 전화 부탁해요. {c003.phone} 또는 01055231003, 메일은 {c003.email} 입니다."},
        format="json",
    )
    assert len(scripted_model.requests) == 4
    wire = json.dumps(scripted_model.requests, ensure_ascii=False)
    for customer in Customer.objects.all():
        assert customer.phone not in wire and customer.phone.replace("-", "") not in wire
        assert customer.email not in wire
    assert "[전화번호]" in wire and "[이메일]" in wire

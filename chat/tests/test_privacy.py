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


def test_only_the_current_message_may_show_an_address_and_only_to_the_wire_pass():
    from chat.prompts import build_messages, tool_turn
    from llm.fence import unfence
    from llm.masking import KEEP_KEY

    old, new = "서울특별시 송파구 올림픽로 300, 101동 1502호", "서울시 마포구 양화로 45 101호"
    messages = build_messages(
        history=[("customer", f"예전 주소는 {old} 이에요"), ("assistant", f"<b>{old}</b> 확인했습니다")],
        current=f"{new}로 바꿔 주세요. 010-1234-5678",
    )
    earlier, reply, current = messages[1:]
    assert old not in earlier["content"] and "[주소]" in earlier["content"] and KEEP_KEY not in earlier
    assert old not in reply["content"] and "<b>" not in reply["content"]
    assert unfence(current["content"]) == f"{new}로 바꿔 주세요. [전화번호]"
    assert current[KEEP_KEY] == ["address"]

    result = tool_turn("c1", {"ok": True, "new_address": new, "orders": [{"shipping_address": old}]})
    assert new not in result["content"] and old not in result["content"] and KEEP_KEY not in result
    assert json.loads(unfence(result["content"])) == {
        "ok": True,
        "new_address": "[주소]",
        "orders": [{"shipping_address": "[주소]"}],
    }


def test_stored_refusal_reasons_are_masked_and_never_carry_another_customers_order_number(
    c003_api, scripted_model, admin_client
):
    from chat.models import ToolCall
    from orders.models import Order

    foreign = Order.objects.exclude(customer_id="C003").values_list("pk", flat=True).first()
    defect = {"reason_category": "상품하자"}
    options = "선택 가능한 옵션: 화이트/250, 화이트/260, 블랙/250, 블랙/260, 블랙/270"
    scripted_model.push(
        tool_calls_message(
            [
                ("request_refund", {"order_id": foreign, "reason_category": "상품하자", "reason": "x"}),
                ("request_exchange", {"order_id": "HR20260721001", "new_option": "010-9876-5432", **defect}),
                ("request_exchange", {"order_id": "HR20260721001", "new_option": foreign, **defect}),
            ]
        ),
        text_message("확인해 보니 처리할 수 없었습니다."),
    )

    body = c003_api.post("/api/chat/", {"message": "환불이랑 교환 부탁해요"}, format="json").json()

    # The customer (and the model) still read that the order was not found, in the words of the tools.
    assert body["tool_results"][0]["reason"] == f"주문번호 '{foreign}'을(를) 찾을 수 없습니다."
    stored = list(ToolCall.objects.order_by("id").values_list("order_id", "reason"))
    assert [reason for _, reason in stored] == [
        "주문번호를 찾을 수 없습니다(고객 본인의 주문이 아니어서 번호는 기록하지 않음).",
        "'쿠션 운동화'에는 '[전화번호]' 옵션이 없습니다. " + options,
        "'쿠션 운동화'에는 '[주문번호]' 옵션이 없습니다. " + options,
    ]
    dashboard = admin_client.get("/admin/metrics/", {"since": "2026-01-01", "until": "2026-12-31", "format": "json"})
    shown = json.dumps(dashboard.json(), ensure_ascii=False)
    assert "[전화번호]" in shown and foreign not in shown and "9876" not in shown

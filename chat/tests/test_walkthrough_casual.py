"""A second README walkthrough, in casual Korean (반말, no spaces, product names instead of order ids), as
C003 with the built-in offline model, through the API, in one conversation. The curl text is in
the README ("Walkthrough in casual Korean")."""

import pytest

from actions.models import ActionRecord
from chat.tests.support import acted, say
from orders.models import Order, ProductOption
from tickets.models import Ticket

pytestmark = pytest.mark.django_db


def test_casual_walkthrough_with_offline_model(c003_api, offline_model):
    # 1. What did I order? (no keyword "조회", no spaces)
    body = say(c003_api, "나뭐주문했지")
    conversation = body["conversation_id"]
    assert [r["tool"] for r in body["tool_results"]] == ["get_my_orders"]
    for order_id in ("HR20260721001", "HR20260628003", "HR20260726002", "HR20260724005"):
        assert order_id in body["reply"]

    # 2. Address change by product name, the address after the verb
    body = say(c003_api, "이어폰 주소 바꿀래. 새 주소는 부산광역시 해운대구 센텀중앙로 79, 1203호야", conversation)
    [result] = acted(body)
    assert (result["tool"], result["ok"], result["status_display"]) == ("change_shipping_address", True, "완료")
    assert Order.objects.get(pk="HR20260726002").shipping_address == "부산광역시 해운대구 센텀중앙로 79, 1203호"

    # 3. The bag is already on its way: refused by the tool, without being asked for an address first
    body = say(c003_api, "가방 배송지도 바꿔줘", conversation)
    [result] = acted(body)
    assert result["ok"] is False and result["reason"] == "이미 '배송중' 상태라 배송지를 바꿀 수 없습니다."
    assert "새 배송지를 알려 주세요" not in body["reply"]

    # 4. Exchange with a colour only (the size is kept), the reason asked once, then given casually
    body = say(c003_api, "운동화 검정으로 교환해줘", conversation)
    [result] = acted(body)
    assert result["needs_clarification"] is True
    assert not ActionRecord.objects.filter(kind="EXCHANGE").exists()
    body = say(c003_api, "그냥 맘에 안 들어서", conversation)
    [result] = acted(body)
    assert (result["tool"], result["ok"], result["status_display"]) == ("request_exchange", True, "완료")
    assert result["action_id"] in body["reply"]
    exchange = ActionRecord.objects.get(kind="EXCHANGE")
    assert (exchange.order_id, exchange.reason_category) == ("HR20260721001", "CHANGE_OF_MIND")
    assert exchange.detail["new_option"] == "블랙/260"
    assert ProductOption.objects.get(product_id="P001", label="블랙/260").stock == 2

    # 5. A described defect is classified, not asked about: the refund is registered as 승인대기 only
    body = say(c003_api, "텀블러 환불해줘 뚜껑이 찌그러져서 왔어", conversation)
    [result] = acted(body)
    assert (result["tool"], result["ok"], result["status"]) == ("request_refund", True, "PENDING")
    refund = ActionRecord.objects.get(kind="REFUND")
    assert (refund.order_id, refund.reason_category, refund.status) == ("HR20260628003", "DEFECT", "PENDING")
    assert "승인하면 처리됩니다" in body["reply"] and "환불되었습니다" not in body["reply"]

    # 6. Where is the parcel?
    body = say(c003_api, "택배 어디쯤이야", conversation)
    assert body["reply"].startswith("배송 상태입니다.")
    assert "HR20260724005 백팩 블랙 · 배송중" in body["reply"]

    # 7. A double charge goes to a person
    body = say(c003_api, "결제가 두번 된거 같아", conversation)
    [result] = acted(body)
    assert result["tool"] == "create_ticket"
    assert Ticket.objects.get().category == Ticket.Category.PAYMENT

    # 8. "Sum up my requests"
    body = say(c003_api, "내 요청 정리해줘", conversation)
    assert [r["tool"] for r in body["tool_results"]] == ["get_my_requests"]
    for record in ActionRecord.objects.all():
        assert record.number in body["reply"]
    assert Ticket.objects.get().number in body["reply"]

    listed = c003_api.get("/api/requests/").json()
    assert {(a["kind"], a["status"]) for a in listed["actions"]} == {
        ("ADDRESS_CHANGE", "DONE"),
        ("EXCHANGE", "DONE"),
        ("REFUND", "PENDING"),
    }

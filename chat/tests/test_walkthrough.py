"""The README walkthrough as C003 with the built-in offline model, through the API."""

import pytest

from actions.models import ActionRecord
from chat.tests.support import acted, say
from orders.models import Order, ProductOption
from tickets.models import Ticket

pytestmark = pytest.mark.django_db


def _outcome(result: dict) -> tuple:
    """What the customer is told of a tool result: the tool, whether it went through, the status and its label."""
    return result["tool"], result["ok"], result["status"], result["status_display"]


def test_readme_walkthrough_with_offline_model(c003_api, offline_model):
    # 1. Address change on the PREPARING order → 완료
    body = say(c003_api, "HR20260726002 배송지를 서울특별시 중구 세종대로 110, 3층으로 바꿔 주세요")
    [result] = acted(body)
    assert _outcome(result) == ("change_shipping_address", True, "DONE", "완료")
    assert result["action_id"] in body["reply"]
    assert Order.objects.get(pk="HR20260726002").shipping_address == "서울특별시 중구 세종대로 110, 3층"

    # 2. Refusal on the SHIPPING order
    body = say(c003_api, "HR20260724005 배송지를 서울특별시 중구 세종대로 110, 3층으로 바꿔 주세요")
    [result] = acted(body)
    assert result["ok"] is False and result["reason"] == "이미 '배송중' 상태라 배송지를 바꿀 수 없습니다."
    assert "배송중" in body["reply"]

    # 3. Exchange of the sneakers
    body = say(c003_api, "운동화 사이즈가 작아서 블랙/260으로 교환하고 싶어요. 단순변심이에요.")
    [result] = acted(body)
    assert (result["tool"], result["ok"], result["status_display"]) == ("request_exchange", True, "완료")
    assert ProductOption.objects.get(product_id="P001", label="블랙/260").stock == 2

    # 4. Refund of the tumbler without a reason → asked to choose → 상품하자 → 승인대기
    body = say(c003_api, "텀블러 환불해 주세요")
    conversation_id = body["conversation_id"]
    [result] = acted(body)
    assert result["needs_clarification"] is True
    assert all(label in body["reply"] for label in ("단순변심", "상품하자", "오배송"))
    assert not ActionRecord.objects.filter(kind="REFUND").exists()
    body = say(c003_api, "상품하자", conversation_id)
    [result] = acted(body)
    assert _outcome(result) == ("request_refund", True, "PENDING", "승인대기")
    refund = ActionRecord.objects.get(kind="REFUND")
    assert (refund.order_id, refund.reason_category) == ("HR20260628003", "DEFECT")

    # 5. A ticket for "상담원 연결"
    body = say(c003_api, "상담원 연결해 주세요")
    [result] = acted(body)
    assert result["tool"] == "create_ticket" and result["ticket_id"].startswith("T")
    assert Ticket.objects.get().category == "CALLBACK"

    # 6. GET /api/requests/ lists them
    listed = c003_api.get("/api/requests/").json()
    assert {(a["kind"], a["status"]) for a in listed["actions"]} == {
        ("ADDRESS_CHANGE", "DONE"),
        ("EXCHANGE", "DONE"),
        ("REFUND", "PENDING"),
    }
    assert [t["ticket_id"] for t in listed["tickets"]] == [result["ticket_id"]]


def test_offline_model_reads_the_reason_from_the_whole_sentence(c003_api, offline_model):
    # "불량은 아니고 색이 마음에 안 들어요" is 단순변심 (the seed's own example: a denied defect), so the tool applies
    # the 7-day window to the tumbler delivered 26 days ago and refuses; nothing is recorded.
    body = say(c003_api, "텀블러가 불량은 아니고 색이 마음에 안 들어요. 환불해 주세요")
    [result] = acted(body)
    assert result["ok"] is False and "needs_clarification" not in result
    assert result["reason"] == "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다."
    assert result["reason"] in body["reply"]
    assert not ActionRecord.objects.exists()

"""The tool registry: each tool's allowed and refused paths, with state asserted in the database."""

import json

import pytest

from actions.models import ActionEvent, ActionRecord
from chat.tests.support import SEED_TOOLS
from chat.tools import make_action_tools
from orders.models import Order, ProductOption
from orders.tests.factories import CustomerFactory, OrderFactory, orders_in_every_state
from tickets.models import Ticket

pytestmark = pytest.mark.django_db


@pytest.fixture
def customer():
    """With contact details, which no tool result may carry."""
    return CustomerFactory(phone="010-5523-1003", email="jihoon.park@example.com")


@pytest.fixture
def mine(customer):
    return orders_in_every_state(customer)


@pytest.fixture
def foreign(db):
    """Another customer's order, not yet shipped."""
    return OrderFactory(status=Order.Status.PREPARING)


@pytest.fixture
def tools(customer, mine):
    return make_action_tools(customer)


def test_registry_has_no_decide_and_no_customer_id_parameter(tools):
    assert tools.names == SEED_TOOLS
    for spec in tools.specs():
        assert spec["type"] == "function"
        assert "customer_id" not in json.dumps(spec["function"]["parameters"])


def test_get_my_orders_lists_only_own_orders_without_contact_details(tools, customer, mine, foreign):
    result = tools.call("get_my_orders", {})
    ids = {o["order_id"] for o in result["orders"]}
    assert ids == set(Order.objects.filter(customer=customer).values_list("order_id", flat=True))
    assert mine.delivered.pk in ids and mine.delivered_long_ago.pk in ids
    text = json.dumps(result, ensure_ascii=False)
    assert customer.phone not in text and customer.email not in text


def test_address_change_on_preparing_order_is_done_and_keeps_old_address(tools, mine):
    preparing = mine.preparing.pk
    old = Order.objects.get(pk=preparing).shipping_address
    result = tools.call(
        "change_shipping_address", {"order_id": preparing, "new_address": "서울특별시 중구 세종대로 110, 3층"}
    )
    assert result["ok"] is True and result["status"] == "완료"
    record = ActionRecord.objects.get()
    assert (record.number, record.kind, record.status) == (result["action_id"], "ADDRESS_CHANGE", "DONE")
    assert record.detail == {"new_address": "서울특별시 중구 세종대로 110, 3층", "old_address": old}
    assert Order.objects.get(pk=preparing).shipping_address == "서울특별시 중구 세종대로 110, 3층"
    assert ActionEvent.objects.filter(record=record, from_status="", to_status="DONE").count() == 1

    # Changing again undoes it.
    undo = tools.call("change_shipping_address", {"order_id": preparing, "new_address": old})
    assert undo["ok"] is True
    assert Order.objects.get(pk=preparing).shipping_address == old


def test_address_change_refused_on_shipping_order(tools, mine):
    shipping = mine.shipping.pk
    before = Order.objects.get(pk=shipping).shipping_address
    result = tools.call("change_shipping_address", {"order_id": shipping, "new_address": "부산광역시 어딘가 1"})
    assert result == {
        "ok": False,
        "order_id": shipping,
        "reason": "이미 '배송중' 상태라 배송지를 바꿀 수 없습니다.",
        "order_status": "배송중",
    }
    assert Order.objects.get(pk=shipping).shipping_address == before
    assert not ActionRecord.objects.exists()


@pytest.mark.parametrize("address", ["", "   ", "서울", "가" * 250])
def test_address_change_refuses_empty_or_absurd_addresses(tools, mine, address):
    result = tools.call("change_shipping_address", {"order_id": mine.preparing.pk, "new_address": address})
    assert result["ok"] is False
    assert not ActionRecord.objects.exists()


def test_exchange_of_sneakers_reserves_one_unit(tools, mine):
    sneakers = mine.delivered
    option = ProductOption.objects.get(product=sneakers.product, label="블랙/260")
    result = tools.call(
        "request_exchange",
        {"order_id": sneakers.pk, "new_option": "블랙/260", "reason_category": "단순변심", "reason": "사이즈"},
    )
    assert result["ok"] is True and result["status"] == "완료" and result["kind"] == "교환접수"
    option.refresh_from_db()
    assert option.stock == 2
    record = ActionRecord.objects.get()
    assert record.reserved_option == option and record.reason_category == "CHANGE_OF_MIND"

    again = tools.call(
        "request_exchange",
        {"order_id": sneakers.pk, "new_option": "블랙/250", "reason_category": "단순변심", "reason": "사이즈"},
    )
    assert again["ok"] is False and "이미 교환" in again["reason"]
    assert ProductOption.objects.get(product=sneakers.product, label="블랙/250").stock == 2


def test_exchange_refused_out_of_stock_and_unknown_option(tools, mine):
    sneakers = mine.delivered.pk
    out = tools.call(
        "request_exchange", {"order_id": sneakers, "new_option": "블랙/270", "reason_category": "상품하자"}
    )
    assert out["ok"] is False and "재고" in out["reason"]
    unknown = tools.call(
        "request_exchange", {"order_id": sneakers, "new_option": "실버/500ml", "reason_category": "상품하자"}
    )
    assert unknown["ok"] is False and "옵션이 없습니다" in unknown["reason"]
    assert not ActionRecord.objects.exists()


def test_exchange_after_window_is_refused_with_days(tools, mine):
    result = tools.call(
        "request_exchange",
        {
            "order_id": mine.delivered_long_ago.pk,
            "new_option": "블랙/500ml",
            "reason_category": "단순변심",
            "reason": "색",
        },
    )
    assert result["reason"] == "배송 완료 후 26일이 지나 교환 가능 기간(7일)을 넘었습니다."


def test_exchange_with_unclear_reason_asks_and_records_nothing(tools, mine):
    result = tools.call("request_exchange", {"order_id": mine.delivered.pk, "new_option": "블랙/260"})
    assert result["ok"] is False and result["needs_clarification"] is True
    assert result["choices"] == ["단순변심", "상품하자", "오배송"]
    assert not ActionRecord.objects.exists()


def test_refund_change_of_mind_after_26_days_is_refused(tools, mine):
    result = tools.call(
        "request_refund",
        {"order_id": mine.delivered_long_ago.pk, "reason_category": "단순변심", "reason": "마음이 바뀜"},
    )
    assert result["ok"] is False
    assert result["reason"] == "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다."
    assert not ActionRecord.objects.exists()


def test_refund_defect_is_pending_and_a_second_request_returns_the_same_number(tools, mine):
    tumbler = mine.delivered_long_ago.pk
    first = tools.call("request_refund", {"order_id": tumbler, "reason_category": "상품하자", "reason": "녹"})
    assert first["ok"] is True and first["status"] == "승인대기" and first["order_amount"] == 38000
    second = tools.call("request_refund", {"order_id": tumbler, "reason_category": "상품하자"})
    assert second["action_id"] == first["action_id"]
    assert second["already_pending"] is True and second["message"] == "이미 승인을 기다리는 요청이 있습니다."
    record = ActionRecord.objects.get()
    assert (record.kind, record.status, record.refund_amount) == ("REFUND", "PENDING", None)
    assert Order.objects.get(pk=tumbler).status == "DELIVERED"  # nothing executed


def test_refund_unclear_on_delivered_asks_and_records_nothing(tools, mine):
    result = tools.call("request_refund", {"order_id": mine.delivered.pk, "reason_category": "확인필요"})
    assert result["needs_clarification"] is True and result["ok"] is False
    assert not ActionRecord.objects.exists()


def test_refund_unclear_on_preparing_registers_a_cancel(tools, mine):
    result = tools.call("request_refund", {"order_id": mine.preparing.pk, "reason_category": "확인필요"})
    assert result["ok"] is True and result["kind"] == "주문취소요청" and result["status"] == "승인대기"
    assert ActionRecord.objects.get().kind == "CANCEL"


def test_refund_on_shipping_order_is_refused(tools, mine):
    result = tools.call("request_refund", {"order_id": mine.shipping.pk, "reason_category": "상품하자"})
    assert result["ok"] is False and "배송중" in result["reason"]
    assert not ActionRecord.objects.exists()


def test_create_ticket_and_get_my_requests(tools, customer, mine):
    tools.call("request_refund", {"order_id": mine.preparing.pk, "reason_category": "확인필요"})
    ticket = tools.call("create_ticket", {"category": "상담원연결", "summary": "상담원과 통화하고 싶어요"})
    assert ticket["ok"] is True and ticket["ticket_id"].startswith("T")
    t = Ticket.objects.get()
    assert (t.category, t.source, t.customer_id) == ("CALLBACK", "AGENT", customer.customer_id)
    assert t.messages.get().body == "상담원과 통화하고 싶어요"
    mine = tools.call("get_my_requests", {})
    assert [a["action_id"] for a in mine["actions"]] == [ActionRecord.objects.get().number]
    assert [x["ticket_id"] for x in mine["tickets"]] == [t.number]


def test_a_ticket_about_an_order_is_linked_to_it_and_never_to_someone_elses(tools, customer, mine, foreign):
    shipping = mine.shipping.pk
    about = tools.call("create_ticket", {"category": "배송", "summary": "백팩 배송이 늦어요", "order_id": shipping})
    assert about["ok"] is True and about["order_id"] == shipping
    assert Ticket.objects.get(pk=int(about["ticket_id"][1:])).order_id == shipping
    other = make_action_tools(customer)
    elsewhere = other.call(
        "create_ticket", {"category": "배송", "summary": "이 주문도 봐 주세요", "order_id": foreign.pk}
    )
    assert elsewhere["ok"] is True and elsewhere["order_id"] is None and "찾을 수 없" in elsewhere["order_note"]
    assert Ticket.objects.get(pk=int(elsewhere["ticket_id"][1:])).order_id is None


def test_unknown_tool_malformed_json_and_invalid_values_are_results_not_crashes(tools):
    assert tools.call("decide", {"action_id": "A00001", "approve": True})["error"] == "unknown_tool"
    assert tools.call("request_refund", "{not json")["error"] == "invalid_arguments"
    assert tools.call("request_refund", "[1, 2]")["error"] == "invalid_arguments"
    assert tools.call("change_shipping_address", {"order_id": 123})["error"] == "invalid_arguments"
    assert not ActionRecord.objects.exists()


def test_customer_id_argument_is_ignored(tools, customer, mine, foreign):
    result = tools.call(
        "request_refund",
        {"order_id": mine.preparing.pk, "reason_category": "확인필요", "customer_id": foreign.customer_id},
    )
    assert result["ok"] is True
    assert ActionRecord.objects.get().customer_id == customer.customer_id


@pytest.mark.parametrize(
    "tool, args",
    [
        ("change_shipping_address", {"new_address": "서울특별시 중구 세종대로 110"}),
        ("request_exchange", {"new_option": "블랙/260", "reason_category": "상품하자", "reason": "x"}),
        ("request_refund", {"reason_category": "상품하자", "reason": "x"}),
    ],
)
def test_another_customers_order_answers_like_a_missing_one(tools, foreign, tool, args):
    foreign = foreign.pk
    missing = "HR20990101999"
    on_foreign = tools.call(tool, {"order_id": foreign, **args})
    on_missing = tools.call(tool, {"order_id": missing, **args})
    assert on_foreign == {"ok": False, "order_id": foreign, "reason": f"주문번호 '{foreign}'을(를) 찾을 수 없습니다."}
    assert on_missing == {"ok": False, "order_id": missing, "reason": f"주문번호 '{missing}'을(를) 찾을 수 없습니다."}
    assert not ActionRecord.objects.exists()


def test_listing_tools_never_show_another_customers_orders_or_requests(tools, foreign):
    other = foreign.customer
    OrderFactory(customer=other, delivered_days_ago=3)
    make_action_tools(other).call("create_ticket", {"summary": "보상 요구"})
    foreign = Order.objects.filter(customer=other).values_list("pk", flat=True)
    text = json.dumps([tools.call("get_my_orders", {}), tools.call("get_my_requests", {})], ensure_ascii=False)
    assert not any(order_id in text for order_id in foreign)
    assert "보상 요구" not in text


@pytest.mark.django_db
def test_request_summaries_given_to_the_model_hide_a_typed_address_that_matches_no_pattern(tools, mine):
    from actions.selectors import action_record_summary_masked

    registry = tools
    registry.call("change_shipping_address", {"order_id": mine.preparing.pk, "new_address": "우리집 현관 앞 3번 상자"})
    record = ActionRecord.objects.get(order_id=mine.preparing.pk)
    assert "현관" in record.summary  # stored as typed; hidden only on the way to a model
    assert "현관" not in action_record_summary_masked(record)
    listed = registry.call("get_my_requests", {})
    assert "현관" not in json.dumps(listed, ensure_ascii=False)

"""The staff commands, run as a person would run them."""

import json

import pytest
from django.core.management import CommandError, call_command

from actions.models import ActionRecord
from orders.models import Order
from orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db


def _run_tool(*args) -> dict:
    from io import StringIO

    out = StringIO()
    call_command("run_tool", *args, stdout=out)
    return json.loads(out.getvalue())


def test_run_tool_refund_change_of_mind_then_defect_then_decide_twice(operator, capsys):
    order = OrderFactory(delivered_days_ago=26)
    refused = _run_tool(
        order.customer_id,
        "request_refund",
        "--args",
        json.dumps({"order_id": order.pk, "reason_category": "단순변심", "reason": "마음이 바뀜"}),
    )
    assert refused["ok"] is False
    assert refused["reason"] == "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다."

    accepted = _run_tool(
        order.customer_id,
        "request_refund",
        "--args",
        json.dumps({"order_id": order.pk, "reason_category": "상품하자", "reason": "마음이 바뀜"}),
    )
    assert accepted["ok"] is True and accepted["status"] == "승인대기"
    number = accepted["action_id"]
    assert number.startswith("A") and len(number) == 6

    call_command("decide", number, "--approve", "--by", "operator")
    assert Order.objects.get(pk=order.pk).status == "RETURNED"
    with pytest.raises(CommandError, match="이미 '승인완료'"):
        call_command("decide", number, "--approve", "--by", "operator")
    assert ActionRecord.objects.get().events.filter(to_status="APPROVED").count() == 1


def test_run_tool_records_staff_as_actor(operator):
    order = OrderFactory(status=Order.Status.PREPARING)
    _run_tool(order.customer_id, "request_refund", "--args", json.dumps({"order_id": order.pk}), "--by", "operator")
    event = ActionRecord.objects.get().events.get()
    assert (event.actor_type, event.actor_label) == ("STAFF", f"operator → {order.customer_id}")


def test_decide_requires_a_user_with_permission(operator):
    order = OrderFactory(status=Order.Status.PREPARING)
    accepted = _run_tool(order.customer_id, "request_refund", "--args", json.dumps({"order_id": order.pk}))
    with pytest.raises(CommandError, match="권한"):
        call_command("decide", accepted["action_id"], "--approve", "--by", order.customer.user.username)
    with pytest.raises(CommandError, match="찾을 수 없습니다"):
        call_command("decide", accepted["action_id"], "--approve", "--by", "nobody")


def test_seed_demo_is_idempotent_and_reset_restores(shop):
    from orders.models import ProductOption

    call_command("seed_demo")
    assert Order.objects.count() == 46
    _run_tool(
        "C003",
        "request_exchange",
        "--args",
        '{"order_id":"HR20260721001","new_option":"블랙/260","reason_category":"단순변심"}',
    )
    assert ProductOption.objects.get(product_id="P001", label="블랙/260").stock == 2
    call_command("seed_demo")
    assert ProductOption.objects.get(product_id="P001", label="블랙/260").stock == 2  # seed does not clobber
    call_command("reset_demo")
    assert not ActionRecord.objects.exists()
    assert ProductOption.objects.get(product_id="P001", label="블랙/260").stock == 3


def test_demo_fixture_covers_the_seed_and_every_status(shop):
    from orders.models import Customer, ProductOption

    sneakers = Order.objects.get(pk="HR20260721001")
    tumbler = Order.objects.get(pk="HR20260628003")
    assert (sneakers.customer_id, sneakers.product.name, str(sneakers.delivered_at)) == (
        "C003",
        "쿠션 운동화",
        "2026-07-25",
    )
    assert (tumbler.customer_id, tumbler.product.name, tumbler.quantity, str(tumbler.delivered_at)) == (
        "C003",
        "스테인리스 텀블러",
        2,
        "2026-07-01",
    )
    assert set(Order.objects.filter(customer_id="C003").values_list("status", flat=True)) >= {
        "PREPARING",
        "SHIPPING",
        "DELIVERED",
    }
    assert Customer.objects.count() >= 8 and Order.objects.count() >= 40
    assert set(Order.objects.values_list("status", flat=True)) == set(Order.Status.values)
    assert ProductOption.objects.filter(stock=0).exists()

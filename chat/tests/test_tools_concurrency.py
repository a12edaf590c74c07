"""Concurrency on PostgreSQL: real threads, real connections, real row locks and constraints."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from decimal import Decimal

import pytest
from django.db import connection

from actions.errors import AlreadyDecided
from actions.models import ActionRecord
from actions.services import action_decide
from chat.tools import make_action_tools
from orders.models import Customer, Order, Product, ProductOption

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _run_concurrently(n: int, fn):
    barrier = threading.Barrier(n)

    def worker(i):
        try:
            barrier.wait(timeout=10)
            return fn(i)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(worker, range(n)))


def test_32_concurrent_refund_requests_collapse_into_one_pending_record(c003):
    results = _run_concurrently(
        32,
        lambda i: make_action_tools(Customer.objects.get(pk="C003")).call(
            "request_refund", {"order_id": "HR20260628003", "reason_category": "상품하자", "reason": f"#{i}"}
        ),
    )
    record = ActionRecord.objects.get(order_id="HR20260628003")
    assert record.status == "PENDING"
    assert all(r["ok"] is True and r["action_id"] == record.number for r in results)
    assert sum(1 for r in results if not r.get("already_pending")) == 1


def test_10_concurrent_exchanges_against_stock_3_yield_exactly_3(shop):
    customer = Customer.objects.get(pk="C003")
    product = Product.objects.create(product_id="P900", name="한정판 운동화", price=Decimal("99000"))
    old = ProductOption.objects.create(product=product, label="화이트/260", stock=0)
    target = ProductOption.objects.create(product=product, label="블랙/260", stock=3)
    for i in range(10):
        Order.objects.create(
            order_id=f"HR2026072500{i}",
            customer=customer,
            product=product,
            option=old,
            amount=Decimal("99000"),
            status="DELIVERED",
            shipping_address="서울특별시 송파구 올림픽로 300",
            ordered_at=date(2026, 7, 20),
            delivered_at=date(2026, 7, 25),
        )
    results = _run_concurrently(
        10,
        lambda i: make_action_tools(Customer.objects.get(pk="C003")).call(
            "request_exchange",
            {"order_id": f"HR2026072500{i}", "new_option": "블랙/260", "reason_category": "상품하자", "reason": "x"},
        ),
    )
    assert sum(r["ok"] for r in results) == 3
    assert all("재고" in r["reason"] for r in results if not r["ok"])
    target.refresh_from_db()
    assert target.stock == 0
    assert ActionRecord.objects.filter(kind="EXCHANGE", reserved_option=target).count() == 3


def test_two_operators_approving_at_once_execute_once(c003, operator_user):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    second = get_user_model().objects.create_user("operator2", password="x", is_staff=True)
    second.user_permissions.add(Permission.objects.get(codename="decide"))
    result = make_action_tools(c003).call(
        "request_refund", {"order_id": "HR20260628003", "reason_category": "상품하자"}
    )
    users = [operator_user.pk, second.pk]

    def approve(i):
        user = get_user_model().objects.get(pk=users[i])
        try:
            return action_decide(number=result["action_id"], approve=True, actor=user).status
        except AlreadyDecided as exc:
            return exc.code

    outcomes = _run_concurrently(2, approve)
    assert sorted(outcomes) == ["APPROVED", "already_decided"]
    record = ActionRecord.objects.get()
    assert record.events.filter(to_status="APPROVED").count() == 1
    assert Order.objects.get(pk="HR20260628003").status == "RETURNED"

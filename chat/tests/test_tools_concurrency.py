"""Concurrency on PostgreSQL: real threads, real connections, real row locks and constraints."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from actions.errors import AlreadyDecided
from actions.models import ActionRecord
from actions.services import action_decide
from actions.tests.factories import decider
from chat.tools import make_action_tools
from orders.models import Customer, Order
from orders.tests.factories import OrderFactory, ProductOptionFactory

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


def test_32_concurrent_refund_requests_collapse_into_one_pending_record():
    order = OrderFactory(delivered_days_ago=26)
    results = _run_concurrently(
        32,
        lambda i: make_action_tools(Customer.objects.get(pk=order.customer_id)).call(
            "request_refund", {"order_id": order.pk, "reason_category": "상품하자", "reason": f"#{i}"}
        ),
    )
    record = ActionRecord.objects.get(order_id=order.pk)
    assert record.status == "PENDING"
    assert all(r["ok"] is True and r["action_id"] == record.number for r in results)
    assert sum(1 for r in results if not r.get("already_pending")) == 1


def test_10_concurrent_exchanges_against_stock_3_yield_exactly_3():
    first = OrderFactory(delivered_days_ago=2, option__label="화이트/260", option__stock=0)
    orders = [first] + [
        OrderFactory(customer=first.customer, option=first.option, delivered_days_ago=2) for _ in range(9)
    ]
    target = ProductOptionFactory(product=first.product, label="블랙/260", stock=3)
    results = _run_concurrently(
        10,
        lambda i: make_action_tools(Customer.objects.get(pk=first.customer_id)).call(
            "request_exchange",
            {"order_id": orders[i].pk, "new_option": "블랙/260", "reason_category": "상품하자", "reason": "x"},
        ),
    )
    assert sum(r["ok"] for r in results) == 3
    assert all("재고" in r["reason"] for r in results if not r["ok"])
    target.refresh_from_db()
    assert target.stock == 0
    assert ActionRecord.objects.filter(kind="EXCHANGE", reserved_option=target).count() == 3


def test_two_operators_approving_at_once_execute_once():
    from django.contrib.auth import get_user_model

    order = OrderFactory(delivered_days_ago=26)
    result = make_action_tools(order.customer).call(
        "request_refund", {"order_id": order.pk, "reason_category": "상품하자"}
    )
    users = [decider().pk, decider().pk]

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
    assert Order.objects.get(pk=order.pk).status == "RETURNED"

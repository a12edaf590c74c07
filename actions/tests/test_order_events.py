"""Actions change orders only through `orders.services`: every change leaves its OrderEvent, with the same
actor as the action's own event and the action's number as the reference."""

from __future__ import annotations

from datetime import date

import pytest

from actions.services import action_decide, address_change, exchange_request, refund_request
from common.actors import Actor
from common.tests.factories import operator_with
from orders.models import Order
from orders.tests.factories import OrderFactory, ProductOptionFactory

pytestmark = pytest.mark.django_db


def _events(order):
    return list(order.events.order_by("id").values_list("type", "actor_type", "actor_id", "payload"))


def test_agent_address_change_leaves_an_order_event_referring_to_the_action():
    order = OrderFactory()
    customer = order.customer
    record = address_change(
        customer=customer,
        order_id=order.pk,
        new_address="서울시 마포구 월드컵로 10",
        actor=Actor.customer_agent(customer),
    )
    assert _events(order) == [("ADDRESS_CHANGED", "CUSTOMER", customer.user_id, {"reference": record.number})]


def test_exchange_leaves_a_stock_reserved_event_for_the_new_option():
    order = OrderFactory(status=Order.Status.DELIVERED, delivered_at=date(2026, 7, 24))
    wanted = ProductOptionFactory(product=order.product, label="블루", stock=2)
    exchange_request(
        customer=order.customer,
        order_id=order.pk,
        new_option="블루",
        reason_category="단순변심",
        reason="색이 달라요",
        actor=Actor.customer_agent(order.customer),
    )
    wanted.refresh_from_db()
    assert wanted.stock == 1
    assert _events(order) == [
        ("STOCK_RESERVED", "CUSTOMER", order.customer.user_id, {"option_id": wanted.pk, "quantity": 1})
    ]


def test_approved_cancel_leaves_status_and_stock_events_by_the_operator():
    order = OrderFactory(option__stock=0)
    pending = refund_request(
        customer=order.customer,
        order_id=order.pk,
        reason_category="확인필요",
        reason="",
        actor=Actor.customer_agent(order.customer),
    ).record
    assert not order.events.exists()  # a request changes nothing on the order
    operator = operator_with("actions.decide")
    action_decide(number=pending.number, approve=True, actor=operator)
    ref = pending.number
    assert _events(order) == [
        ("STATUS_CHANGED", "OPERATOR", operator.pk, {"before": "PAID", "after": "CANCELLED", "reference": ref}),
        ("STOCK_RELEASED", "OPERATOR", operator.pk, {"option_id": order.option_id, "quantity": 1, "reference": ref}),
    ]


def test_approved_refund_leaves_a_returned_event_and_a_rejection_leaves_none():
    returned = OrderFactory(status=Order.Status.DELIVERED, delivered_at=date(2026, 7, 24))
    kept = OrderFactory(status=Order.Status.DELIVERED, delivered_at=date(2026, 7, 24))
    agent = Actor.customer_agent(returned.customer)
    operator = operator_with("actions.decide")
    for order, approve in ((returned, True), (kept, False)):
        record = refund_request(
            customer=order.customer,
            order_id=order.pk,
            reason_category="상품하자",
            reason="파손",
            actor=Actor.customer_agent(order.customer) if order is kept else agent,
        ).record
        action_decide(number=record.number, approve=approve, actor=operator)
    assert [(t, p["after"]) for t, _, _, p in _events(returned)] == [("STATUS_CHANGED", "RETURNED")]
    assert not kept.events.exists()

"""Order changes live in `orders.services`: each locks the order, changes it and writes one OrderEvent per
change with the actor, in one transaction."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import transaction

from common.actors import Actor
from common.errors import InvalidState
from orders.models import Order, OrderEvent
from orders.services import order_address_change, order_cancel, order_return, stock_release, stock_reserve
from orders.tests.factories import OrderFactory, ProductOptionFactory

pytestmark = pytest.mark.django_db

SYSTEM = Actor("SYSTEM", "테스트")


def _events(order):
    return list(order.events.order_by("id").values_list("type", "actor_type", "actor_label", "payload"))


def test_address_change_records_that_it_changed_without_the_address():
    order = OrderFactory()
    actor = Actor.customer_agent(order.customer)
    order_address_change(order=order, address="부산시 해운대구 1", actor=actor, reference="A00001")
    order.refresh_from_db()
    assert order.shipping_address == "부산시 해운대구 1"
    assert _events(order) == [("ADDRESS_CHANGED", "CUSTOMER", actor.label, {"reference": "A00001"})]
    assert order.events.get().actor_id == order.customer.user_id


def test_the_same_address_is_no_change_and_no_event():
    order = OrderFactory()
    order_address_change(order=order, address=order.shipping_address, actor=SYSTEM)
    assert not order.events.exists()


def test_cancel_records_status_and_the_released_stock():
    order = OrderFactory(quantity=2, option__stock=3)
    order_cancel(order=order, actor=SYSTEM, reference="A00002")
    order.refresh_from_db()
    order.option.refresh_from_db()
    assert (order.status, order.option.stock) == ("CANCELLED", 5)
    assert _events(order) == [
        ("STATUS_CHANGED", "SYSTEM", "테스트", {"before": "PAID", "after": "CANCELLED", "reference": "A00002"}),
        ("STOCK_RELEASED", "SYSTEM", "테스트", {"option_id": order.option_id, "quantity": 2, "reference": "A00002"}),
    ]


def test_return_records_the_status_change():
    order = OrderFactory(status=Order.Status.DELIVERED, delivered_at=date(2026, 7, 22))
    order_return(order=order, actor=SYSTEM, reference="A00003")
    assert order.status == "RETURNED"  # the caller's instance follows
    assert _events(order) == [
        ("STATUS_CHANGED", "SYSTEM", "테스트", {"before": "DELIVERED", "after": "RETURNED", "reference": "A00003"})
    ]


@pytest.mark.parametrize("service", [order_cancel, order_return])
def test_a_finished_order_is_not_changed_again(service):
    order = OrderFactory(status=Order.Status.CANCELLED)
    with pytest.raises(InvalidState) as err:
        service(order=order, actor=SYSTEM)
    assert err.value.code == "order_finished"
    assert not order.events.exists()


def test_stock_reserve_takes_a_unit_and_records_it_until_none_are_left():
    order = OrderFactory()
    option = ProductOptionFactory(product=order.product, stock=1)
    assert stock_reserve(order=order, option=option, actor=SYSTEM) is True
    assert stock_reserve(order=order, option=option, actor=SYSTEM) is False
    option.refresh_from_db()
    assert option.stock == 0
    assert _events(order) == [("STOCK_RESERVED", "SYSTEM", "테스트", {"option_id": option.pk, "quantity": 1})]


def test_stock_release_puts_units_back_and_records_it():
    order = OrderFactory(option__stock=0)
    stock_release(order=order, option_id=order.option_id, quantity=1, actor=SYSTEM)
    order.option.refresh_from_db()
    assert order.option.stock == 1
    assert [e[0] for e in _events(order)] == ["STOCK_RELEASED"]


def test_a_rolled_back_cancel_leaves_no_event_status_or_stock_change():
    order = OrderFactory(option__stock=3)
    with pytest.raises(RuntimeError), transaction.atomic():
        order_cancel(order=order, actor=SYSTEM)
        raise RuntimeError("the surrounding change failed")
    order.refresh_from_db()
    order.option.refresh_from_db()
    assert (order.status, order.option.stock) == ("PAID", 3)
    assert not OrderEvent.objects.exists()

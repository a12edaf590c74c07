"""Shop rows for tests where the particular demo id is not the point."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

import factory

from common import clock
from common.tests.factories import UserFactory
from orders.models import Customer, Order, Product, ProductOption
from orders.services import OPERATOR_PERMISSIONS, staff_permissions


def desk_operator(**fields):
    """A staff user with the permissions the shop gives its operators (every view, the decisions, replies...), as
    the demo's `operator` has them: for pages where which permission is not the point."""
    user = UserFactory(is_staff=True, **fields)
    user.user_permissions.add(*staff_permissions(OPERATOR_PERMISSIONS))
    return type(user).objects.get(pk=user.pk)  # fresh: no cached permissions


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    customer_id = factory.Sequence(lambda n: f"T{n:04d}")
    name = "테스트고객"
    user = factory.SubFactory(UserFactory, username=factory.SelfAttribute("..customer_id"))


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Product

    product_id = factory.Sequence(lambda n: f"TP{n:04d}")
    name = factory.Sequence(lambda n: f"테스트상품{n}")
    price = Decimal("10000")


class ProductOptionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProductOption

    product = factory.SubFactory(ProductFactory)
    label = factory.Sequence(lambda n: f"옵션{n}")
    stock = 5


def days_ago(days: int) -> date:
    """A date counted back from the shop's today (CS_TODAY, which the suite pins), as the windows count it."""
    return clock.today() - timedelta(days=days)


def _counted_back(order, extra_days: int = 0) -> date | None:
    """`delivered_days_ago` (plus `extra_days` earlier), or None for an order not made delivered that way."""
    return None if order.delivered_days_ago is None else days_ago(order.delivered_days_ago + extra_days)


class OrderFactory(factory.django.DjangoModelFactory):
    """A paid order of one unit. `delivered_days_ago=N` makes it delivered N days before the shop's today (shipped
    two days before that); `shipping=True` makes it out for delivery since yesterday."""

    class Meta:
        model = Order

    class Params:
        delivered_days_ago = None
        shipping = factory.Trait(status=Order.Status.SHIPPING, shipped_at=factory.LazyFunction(lambda: days_ago(1)))

    # The shop's format, HR + 11 digits (what the chat's order-number reader finds in a message), on a date that
    # does not exist (2026-00-00), so never one of the demo's orders.
    order_id = factory.Sequence(lambda n: f"HR{20260000000 + n}")
    customer = factory.SubFactory(CustomerFactory)
    option = factory.SubFactory(ProductOptionFactory)
    product = factory.SelfAttribute("option.product")
    quantity = 1
    amount = Decimal("10000")
    status = factory.LazyAttribute(
        lambda o: Order.Status.PAID if o.delivered_days_ago is None else Order.Status.DELIVERED
    )
    shipping_address = "서울시 중구 세종대로 1"
    ordered_at = factory.LazyAttribute(lambda o: _counted_back(o, 4) or date(2026, 7, 20))
    shipped_at = factory.LazyAttribute(lambda o: _counted_back(o, 2))
    delivered_at = factory.LazyAttribute(_counted_back)


@dataclass
class OrdersInEveryState:
    """One customer's orders, one in each state the desk's rules tell apart."""

    delivered: (
        Order  # two days ago: within every window; the product also comes in 블랙/260 (3), 블랙/250 (2), 블랙/270 (0)
    )
    delivered_long_ago: Order  # 38,000원, 26 days ago: past the 7-day change-of-mind windows, within a defect's
    preparing: Order  # not shipped: the address may change, a refund is a cancellation
    shipping: Order  # out for delivery: neither


def orders_in_every_state(customer: Customer) -> OrdersInEveryState:
    delivered = OrderFactory(customer=customer, delivered_days_ago=2, option__label="화이트/260")
    for label, stock in (("블랙/260", 3), ("블랙/250", 2), ("블랙/270", 0)):
        ProductOptionFactory(product=delivered.product, label=label, stock=stock)
    long_ago = OrderFactory(
        customer=customer, delivered_days_ago=26, amount=Decimal("38000"), quantity=2, option__label="실버/500ml"
    )
    ProductOptionFactory(product=long_ago.product, label="블랙/500ml", stock=6)
    return OrdersInEveryState(
        delivered=delivered,
        delivered_long_ago=long_ago,
        preparing=OrderFactory(customer=customer, status=Order.Status.PREPARING),
        shipping=OrderFactory(customer=customer, shipping=True),
    )

"""Shop rows for tests where the particular demo id is not the point."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import factory

from common.tests.factories import UserFactory
from orders.models import Customer, Order, Product, ProductOption


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


class OrderFactory(factory.django.DjangoModelFactory):
    """A paid order of one unit; pass `status=Order.Status.DELIVERED, delivered_at=...` for later states."""

    class Meta:
        model = Order

    order_id = factory.Sequence(lambda n: f"HR{20260700000000 + n}")
    customer = factory.SubFactory(CustomerFactory)
    option = factory.SubFactory(ProductOptionFactory)
    product = factory.SelfAttribute("option.product")
    quantity = 1
    amount = Decimal("10000")
    status = Order.Status.PAID
    shipping_address = "서울시 중구 세종대로 1"
    ordered_at = date(2026, 7, 20)

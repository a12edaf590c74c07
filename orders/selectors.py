"""Reads of orders."""

from __future__ import annotations

import re

from common.errors import NotFound
from orders.models import ORDER_ID_PATTERN, Customer, Order


def order_not_found_message(order_id: object) -> str:
    return f"주문번호 '{order_id}'을(를) 찾을 수 없습니다."


def customer_order_get(*, customer: Customer, order_id: object, for_update: bool = False) -> Order:
    """The customer's own order. Someone else's order is answered exactly like a missing one."""
    qs = Order.objects.select_related("product", "option")
    if for_update:
        qs = qs.select_for_update(of=("self",))
    text = str(order_id).strip().upper() if isinstance(order_id, (str, int)) and order_id else ""
    # Only the canonical ASCII form reaches the query (a NUL would fail a PostgreSQL lookup).
    order = qs.filter(customer=customer, pk=text).first() if re.fullmatch(ORDER_ID_PATTERN, text, re.ASCII) else None
    if order is None:
        raise NotFound(order_not_found_message(order_id))
    return order

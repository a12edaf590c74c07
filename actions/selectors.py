from __future__ import annotations

import re

from django.db.models import QuerySet

from actions.models import ActionRecord
from common.errors import NotFound
from common.numbering import parse_number
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


def action_record_list(*, customer: Customer) -> QuerySet[ActionRecord]:
    return ActionRecord.objects.filter(customer=customer).select_related("order__product").order_by("-id")


def action_record_get(*, number: str | int) -> ActionRecord:
    pk = parse_number("A", number)
    record = ActionRecord.objects.select_related("order", "customer").filter(pk=pk).first() if pk else None
    if record is None:
        raise NotFound(f"처리번호 '{number}'을(를) 찾을 수 없습니다.")
    return record


def pending_queue() -> QuerySet[ActionRecord]:
    return ActionRecord.objects.filter(status=ActionRecord.Status.PENDING).select_related("order", "customer")

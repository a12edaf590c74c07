from __future__ import annotations

from django.db.models import QuerySet

from actions.models import ActionRecord
from common.errors import NotFound
from common.numbering import parse_number
from common.redaction import ADDRESS, redact, redact_known
from orders.models import Customer, Order


def order_not_found_message(order_id: object) -> str:
    return f"주문번호 '{order_id}'을(를) 찾을 수 없습니다."


def customer_order_get(*, customer: Customer, order_id: object, for_update: bool = False) -> Order:
    """The customer's own order. Someone else's order is answered exactly like a missing one."""
    qs = Order.objects.select_related("product", "option")
    if for_update:
        qs = qs.select_for_update(of=("self",))
    order = qs.filter(customer=customer, pk=str(order_id).strip().upper()).first() if order_id else None
    if order is None:
        raise NotFound(order_not_found_message(order_id))
    return order


def action_record_list(*, customer: Customer) -> QuerySet[ActionRecord]:
    return ActionRecord.objects.filter(customer=customer).select_related("order__product").order_by("-id")


ADDRESS_DETAIL_KEYS = ("new_address", "old_address")


def action_record_summary_masked(record: ActionRecord) -> str:
    """The summary as a model may read it: the addresses it quotes are replaced whole (a typed address need
    not match any address pattern), then the rest goes through the one masking policy."""
    detail = record.detail if isinstance(record.detail, dict) else {}
    known = [detail.get(key) for key in ADDRESS_DETAIL_KEYS if isinstance(detail.get(key), str)]
    return redact(redact_known(record.summary, known, marker=ADDRESS))


def action_record_get(*, number: str | int) -> ActionRecord:
    pk = parse_number("A", number)
    record = ActionRecord.objects.select_related("order", "customer").filter(pk=pk).first() if pk else None
    if record is None:
        raise NotFound(f"처리번호 '{number}'을(를) 찾을 수 없습니다.")
    return record


def pending_queue() -> QuerySet[ActionRecord]:
    return ActionRecord.objects.filter(status=ActionRecord.Status.PENDING).select_related("order", "customer")

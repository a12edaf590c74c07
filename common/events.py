"""Events the shop must hear about, written through the outbox in the same transaction as the change.

The domain apps (actions, tickets) emit; whoever connects a shop (the `integration` app) registers the outbox
handler for `SHOP_EVENT_TOPIC` and routes each event to the shop that owns the order. Without a handler the
row stays PENDING (the sweep keeps it until one is registered); the embedded demo registers it too.
"""

from __future__ import annotations

from django.utils import timezone

from common.outbox import OutboxMessage, outbox_enqueue

SHOP_EVENT_TOPIC = "shop.event"

# The event catalogue: stable English codes (the README lists their data).
ACTION_ADDRESS_CHANGED = "action.address_changed"
ACTION_EXCHANGE_ACCEPTED = "action.exchange_accepted"
ACTION_REFUND_APPROVED = "action.refund_approved"
ACTION_CANCEL_APPROVED = "action.cancel_approved"
ACTION_REJECTED = "action.rejected"
TICKET_CREATED = "ticket.created"
TICKET_REPLIED = "ticket.replied"
EVENT_TYPES = (
    ACTION_ADDRESS_CHANGED,
    ACTION_EXCHANGE_ACCEPTED,
    ACTION_REFUND_APPROVED,
    ACTION_CANCEL_APPROVED,
    ACTION_REJECTED,
    TICKET_CREATED,
    TICKET_REPLIED,
)
# What an operator reads for each (the codes stay the contract with the shop).
EVENT_TYPE_LABELS = {
    ACTION_ADDRESS_CHANGED: "배송지 변경",
    ACTION_EXCHANGE_ACCEPTED: "교환 접수",
    ACTION_REFUND_APPROVED: "환불 승인",
    ACTION_CANCEL_APPROVED: "주문 취소 승인",
    ACTION_REJECTED: "요청 반려",
    TICKET_CREATED: "문의 접수",
    TICKET_REPLIED: "상담원 답변",
}


def shop_event_emit(*, type: str, key: str, data: dict) -> OutboxMessage:
    """Call inside the change's transaction. `key` makes it once per (type, key); `data` is JSON-safe and
    should carry `order_id` when there is one (the route to the shop that owns it)."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown shop event type {type!r}")
    return outbox_enqueue(
        topic=SHOP_EVENT_TOPIC,
        key=f"{type}:{key}",
        payload={"type": type, "data": data, "created_at": timezone.now().isoformat()},
    )

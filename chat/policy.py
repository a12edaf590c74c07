"""Pure rules of the chat app: what of a tool call is kept. No ORM, no settings."""

from __future__ import annotations

import re
from collections.abc import Iterable

from common.redaction import redact
from orders.models import ORDER_ID_PATTERN

REASON_MAX_LEN = 300  # ToolCall.reason

# A call about an order that is not the customer's can only have ended as "not found" (someone else's order
# answers exactly like a missing one). The number the model passed is not kept in the words: the reason is
# read on the metrics dashboard and grouped there, and another customer's order number has no place in it.
NOT_OWN_ORDER_REASON = "주문번호를 찾을 수 없습니다(고객 본인의 주문이 아니어서 번호는 기록하지 않음)."
ORDER_NUMBER = "[주문번호]"

_ORDER_ID_IN_TEXT = re.compile(rf"(?<![A-Za-z0-9])(?:{ORDER_ID_PATTERN})(?![0-9])", re.IGNORECASE | re.ASCII)


def order_id_normalized(value: object) -> str:
    """An order id as the desk stores it (what `customer_order_get` looks up): trimmed, upper case."""
    return str(value).strip().upper() if value else ""


def order_id_canonical(value: str) -> bool:
    """Only the canonical ASCII form may reach a query (a NUL fails a PostgreSQL lookup); nothing else is an
    order of anyone's."""
    return re.fullmatch(ORDER_ID_PATTERN, value, re.ASCII) is not None


def order_ids_mentioned(text: str) -> set[str]:
    """Every order number in `text`, normalised."""
    return {match.upper() for match in _ORDER_ID_IN_TEXT.findall(text or "")}


def tool_reason_stored(reason: str, *, order_id: object, own_orders: Iterable[str]) -> str:
    """What is stored (and shown on the dashboard) of a tool's refusal reason. The words are written from what
    the model passed, which may be anything: masked with the one masking policy (phone numbers, addresses, …),
    a call about an order that is not the customer's reduced to NOT_OWN_ORDER_REASON, and any other order number
    in the words that is not the customer's replaced by a marker. `own_orders`: the customer's order ids among
    those named (normalised)."""
    if not reason:
        return ""
    own = set(own_orders)
    asked = order_id_normalized(order_id)
    if asked and asked not in own:
        return NOT_OWN_ORDER_REASON
    masked = redact(reason)
    kept = _ORDER_ID_IN_TEXT.sub(lambda m: m.group(0) if m.group(0).upper() in own else ORDER_NUMBER, masked)
    return kept[:REASON_MAX_LEN]

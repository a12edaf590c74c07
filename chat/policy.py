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


# --- lines the conversation shows besides the agent's turns -------------------------------------------------
AUTHOR_OPERATOR = "상담원"
AUTHOR_ASSISTANT = "AI 상담"
AUTHOR_SYSTEM = "안내"


def author_line(role: str, author_name: str = "") -> str:
    """Who a message is from, as the chat page shows it: "상담원 김상담" (or "상담원"), "AI 상담", "안내", and
    nothing for the customer's own words."""
    if role == "operator":
        return f"{AUTHOR_OPERATOR} {author_name}".strip()
    return {"assistant": AUTHOR_ASSISTANT, "system": AUTHOR_SYSTEM}.get(role, "")


def outcome_line(*, number: str, kind: str, status: str, product: str, amount: str, shop_name: str = "") -> str | None:
    """The system line for a money request's outcome, from the record alone (never the model's words): what was
    decided and what happens next. `kind` REFUND/CANCEL, `status` the record's new status, `amount` already
    formatted ("38,000원"). None for a status that is not an outcome the customer is told of."""
    request = "주문 취소 요청" if kind == "CANCEL" else "환불 요청"
    head = f"{request} {number}({product})"
    money = "주문이 취소되고" if kind == "CANCEL" else "반품이 확인되어"
    lines = {
        # The desk's own shop settles at once on approval (the order is returned or cancelled, the amount set).
        "APPROVED": f"{head}이 승인되었습니다. {money} {amount}이 환불 처리되었습니다.",
        # A connected shop moves the money and reports back: approved, not refunded yet.
        "EXECUTING": f"{head}이 승인되었습니다. 쇼핑몰에서 {amount} 환불을 진행하며, 끝나면 이 대화로 알려 드립니다.",
        "REJECTED": f"{head}이 반려되었습니다. 자세한 안내가 필요하시면 상담원 연결을 요청해 주세요.",
        "DONE": f"{head}의 환불이 완료되었습니다. 환불 금액: {amount}.",
        "FAILED": f"{head}의 환불 처리에 실패했습니다. 상담원이 확인한 뒤 다시 안내해 드리겠습니다.",
    }
    return lines.get(status)

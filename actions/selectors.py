from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from actions.claims import Claim, MoneyFact, claims_unsupported, find_money_claims
from actions.models import ActionRecord
from common.redaction import ADDRESS, redact, redact_known
from orders.models import Customer, Order
from orders.selectors import customer_order_get, order_not_found_message  # noqa: F401  (re-exported)


def action_record_list(*, customer: Customer) -> QuerySet[ActionRecord]:
    return ActionRecord.objects.filter(customer=customer).select_related("order__product").order_by("-id")


ADDRESS_DETAIL_KEYS = ("new_address", "old_address")


def action_record_summary_masked(record: ActionRecord) -> str:
    """The summary as a model may read it: the addresses it quotes are replaced whole (a typed address need
    not match any address pattern), then the rest goes through the one masking policy."""
    detail = record.detail if isinstance(record.detail, dict) else {}
    known = [detail.get(key) for key in ADDRESS_DETAIL_KEYS if isinstance(detail.get(key), str)]
    return redact(redact_known(record.summary, known, marker=ADDRESS))


# Money that a person let go: only these records make a "환불되었습니다" true.
SETTLED_MONEY_STATUSES = (ActionRecord.Status.APPROVED, ActionRecord.Status.DONE)


SETTLED_ORDER_STATUSES = (Order.Status.CANCELLED, Order.Status.RETURNED)


def money_claims_check(claims: list[Claim], *, customer_id: str, order_ids: Iterable[str] | None = None) -> list[Claim]:
    """Which of these claims the customer's records do not make true (two queries; none without claims)."""
    if not claims:
        return []
    approved = [
        MoneyFact(order_id, amount)
        for order_id, amount in ActionRecord.objects.filter(
            customer_id=customer_id, kind__in=ActionRecord.MONEY_KINDS, status__in=SETTLED_MONEY_STATUSES
        ).values_list("order_id", "refund_amount")
    ]
    orders = list(Order.objects.filter(customer_id=customer_id).values_list("order_id", "status"))
    unsupported = claims_unsupported(
        claims, approved=approved, customer_order_ids=[o for o, _ in orders], order_ids=order_ids
    )
    # An order the shop has already cancelled or taken back is a record too: "HR… · 취소완료" in an order
    # listing states that order's status and promises nothing. Only for a sentence that names such orders and
    # no others — a customer's old returned order never excuses a promise about a new request.
    settled = {o.upper() for o, state in orders if state in SETTLED_ORDER_STATUSES}
    named = {o.upper() for o, _ in orders}
    return [c for c in unsupported if not _names_only(c.sentence.upper(), settled, named)]


def _names_only(sentence: str, settled: set[str], known: set[str]) -> bool:
    mentioned = {o for o in known if o in sentence}
    return bool(mentioned) and mentioned <= settled


def money_claims_unsupported(text: str, *, customer_id: str, order_ids: Iterable[str] | None = None) -> list[Claim]:
    """Sentences of `text` that say a refund or cancellation is approved, done, paid or scheduled when no
    APPROVED/DONE refund or cancellation of the customer's (for the orders named, else `order_ids`, else any
    of theirs) says so. Text with no money claim costs no query."""
    return money_claims_check(find_money_claims(text), customer_id=customer_id, order_ids=order_ids)

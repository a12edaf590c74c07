from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings
from django.db.models import Count, OuterRef, QuerySet, Subquery

from actions import policy
from actions.claims import Claim, MoneyFact, OrderFact, claims_unsupported, find_money_claims
from actions.models import ActionEvent, ActionRecord
from common.business_hours import BusinessCalendar
from common.numbering import format_number
from common.redaction import ADDRESS, redact, redact_known
from orders.models import Customer, Order
from orders.policy import product_words


def return_windows() -> policy.Windows:
    """The shop's return windows as configured now (CS_RETURN_DAYS, CS_DEFECT_DAYS), read at each call so a
    test or an evaluation of another shop's policy can set them."""
    return policy.Windows(return_days=int(settings.CS_RETURN_DAYS), defect_days=int(settings.CS_DEFECT_DAYS))


def action_record_list(*, customer: Customer) -> QuerySet[ActionRecord]:
    return ActionRecord.objects.filter(customer=customer).select_related("order__product").order_by("-id")


def action_queue_counts() -> dict[str, int]:
    """The approval queue's figures on the admin index: requests waiting for a person, and approved ones the
    shop reported it could not carry out (a person must follow up)."""
    rows = dict(
        ActionRecord.objects.filter(status__in=[ActionRecord.Status.PENDING, ActionRecord.Status.FAILED])
        .order_by()
        .values_list("status")
        .annotate(n=Count("id"))
    )
    return {"pending": rows.get(ActionRecord.Status.PENDING, 0), "failed": rows.get(ActionRecord.Status.FAILED, 0)}


def action_events_since_marker(*, customer_id: str | None = None) -> QuerySet[ActionEvent]:
    """The rows whose arrival means the approval queue or a customer's request list may show something new
    (common.live): every record's audit rows for staff, or only those of one customer's own records."""
    events = ActionEvent.objects.all()
    return events if customer_id is None else events.filter(record__customer_id=customer_id)


ADDRESS_DETAIL_KEYS = ("new_address", "old_address")


def action_record_summary_masked(record: ActionRecord) -> str:
    """The summary as a model may read it: the addresses it quotes are replaced whole (a typed address need
    not match any address pattern), then the rest goes through the one masking policy."""
    detail = record.detail if isinstance(record.detail, dict) else {}
    known = [detail.get(key) for key in ADDRESS_DETAIL_KEYS if isinstance(detail.get(key), str)]
    return redact(redact_known(record.summary, known, marker=ADDRESS))


# Money that a person let go: only these records make a "환불되었습니다" true.
SETTLED_MONEY_STATUSES = (ActionRecord.Status.APPROVED, ActionRecord.Status.DONE)
# An order the shop has already cancelled or taken back is a record too ("HR… · 취소완료" in a listing).
SETTLED_ORDER_STATUSES = (Order.Status.CANCELLED, Order.Status.RETURNED)


def money_claims_check(claims: list[Claim], *, customer_id: str, order_ids: Iterable[str] | None = None) -> list[Claim]:
    """Which of these claims the customer's records do not make true (two queries; none without claims).
    Each claim is checked against the orders it names — by id, product word or nickname, or request number —
    else the orders in `order_ids`; see actions.claims.claims_unsupported."""
    if not claims:
        return []
    records = list(
        ActionRecord.objects.filter(customer_id=customer_id).values_list(
            "pk", "order_id", "kind", "status", "refund_amount"
        )
    )
    numbers: dict[str, list[str]] = {}
    approved = []
    for pk, order_id, kind, status, amount in records:
        numbers.setdefault(order_id, []).append(format_number("A", pk))
        if kind in ActionRecord.MONEY_KINDS and status in SETTLED_MONEY_STATUSES:
            approved.append(MoneyFact(order_id, amount))
    orders = []
    for order_id, amount, status, name in Order.objects.filter(customer_id=customer_id).values_list(
        "order_id", "amount", "status", "product__name"
    ):
        names, on_order = tuple(product_words(name or "")), tuple(numbers.get(order_id, ()))
        orders.append(OrderFact(order_id, amount, names=names, numbers=on_order))
        if status in SETTLED_ORDER_STATUSES:
            approved.append(MoneyFact(order_id, amount))
    return claims_unsupported(claims, approved=approved, orders=orders, order_ids=order_ids)


def money_claims_unsupported(text: str, *, customer_id: str, order_ids: Iterable[str] | None = None) -> list[Claim]:
    """Sentences of `text` that say a refund or cancellation is approved, done, paid or scheduled when no
    APPROVED/DONE refund or cancellation of the customer's (for the orders named, else `order_ids`, else any
    of theirs) says so. Text with no money claim costs no query."""
    return money_claims_check(find_money_claims(text), customer_id=customer_id, order_ids=order_ids)


# Put in place of what a model wrote that the records do not make true (a ticket summary, a request's reason).
CLAIM_REMOVED = "(확인되지 않은 환불·취소 안내는 제외했습니다)"


def money_claims_strip(text: str, *, customer_id: str, order_ids: Iterable[str] | None = None) -> tuple[str, int]:
    """`text` without the sentences that say money moved when the records do not say so, for model-written
    words a customer will read as the desk's (a ticket's summary, a request's reason). Returns the text and how
    many sentences went; a text that was nothing but such sentences becomes CLAIM_REMOVED."""
    unsupported = money_claims_unsupported(text, customer_id=customer_id, order_ids=order_ids)
    if not unsupported:
        return text, 0
    kept, last = [], 0
    for claim in sorted(unsupported, key=lambda c: c.start):
        if claim.start >= last:
            kept.append(text[last : claim.start])
            last = claim.end
    kept.append(text[last:])
    stripped = " ".join(" ".join(kept).split())
    return (f"{stripped} {CLAIM_REMOVED}" if stripped else CLAIM_REMOVED), len(unsupported)


# --- the statutory refund deadline, as the approval queue and the record page show it --------------------------
def with_settled_at(records: QuerySet[ActionRecord]) -> QuerySet[ActionRecord]:
    """Annotates `settled_at`: when the shop reported the money moved (the first event to DONE), in one query."""
    done = ActionEvent.objects.filter(record=OuterRef("pk"), to_status=ActionRecord.Status.DONE).order_by("id")
    return records.annotate(settled_at=Subquery(done.values("created_at")[:1]))


@dataclass(frozen=True)
class RefundDeadline:
    deadline: date
    state: str  # actions.policy.DEADLINE_* codes

    @property
    def label(self) -> str:
        return policy.DEADLINE_LABELS[self.state]


def action_refund_deadline(
    record: ActionRecord, *, today: date, calendar: BusinessCalendar, settled_at: datetime | None = None
) -> RefundDeadline | None:
    """The deadline of an approved refund or cancellation and where it stands (None for anything else). The money
    moved at approval with the built-in shop (APPROVED), when the shop reported it (DONE: `settled_at`, from
    `with_settled_at`)."""
    if (
        record.kind not in ActionRecord.MONEY_KINDS
        or record.status not in policy.DEADLINE_STATUSES
        or record.decided_at is None
    ):
        return None
    deadline = policy.refund_deadline(approved_at=record.decided_at, calendar=calendar)
    settled_on = None
    if record.status == ActionRecord.Status.APPROVED:
        settled_on = record.decided_at.astimezone(calendar.tz).date()
    elif record.status == ActionRecord.Status.DONE:
        moment = settled_at if settled_at is not None else getattr(record, "settled_at", None) or record.decided_at
        settled_on = moment.astimezone(calendar.tz).date()
    return RefundDeadline(
        deadline, policy.refund_deadline_state(deadline=deadline, today=today, settled_on=settled_on, calendar=calendar)
    )

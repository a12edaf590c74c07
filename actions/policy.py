"""Whether a request is allowed. Pure functions on plain values: no ORM, no settings, no clock.

The model never decides any of this; the tools call these rules with the order as it is in the
database, the date from `common.clock.today()` and the shop's return windows
(`actions.selectors.return_windows()`: settings CS_RETURN_DAYS and CS_DEFECT_DAYS, read at call time).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime

from actions.models import ActionRecord, ReasonCategory
from common.business_hours import BusinessCalendar, business_day_after
from common.choices import choice_parse
from common.redaction import has_marker
from orders.models import Order

S = Order.Status
BEFORE_SHIPPING: frozenset[str] = frozenset({S.PAID, S.PREPARING})
CLOSED_STATUSES: frozenset[str] = frozenset({S.CANCELLED, S.RETURNED})
ADDRESS_MIN_LEN = 5
ADDRESS_MAX_LEN = 200
REASON_MAX_LEN = 500

CLARIFY_REASON = "사유를 확인해야 합니다. 단순변심, 상품하자, 오배송 중 어떤 경우인지 알려 주세요."


@dataclass(frozen=True)
class Windows:
    """Days after delivery within which a return or exchange may be asked for: for a change of mind
    (단순변심), and for a defect or a wrong item (상품하자·오배송). The demo shop's are 7 and 30 (정책 제2조)."""

    return_days: int
    defect_days: int


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str = ""
    kind: str = ""  # for refunds: CANCEL or REFUND
    days_since_delivery: int | None = None
    needs_clarification: bool = False


def status_label(status: str) -> str:
    return S(status).label


def parse_reason_category(value: object) -> str | None:
    """Accept the English code or the seed's Korean label; None for anything else."""
    return choice_parse(ReasonCategory, value)


def days_since(delivered_at: date | None, today: date) -> int | None:
    if delivered_at is None:
        return None
    return (today - delivered_at).days


def window_days(reason_category: str, windows: Windows) -> int:
    """단순변심 → the return window; 상품하자·오배송 → the defect window."""
    return windows.return_days if reason_category == ReasonCategory.CHANGE_OF_MIND else windows.defect_days


def normalize_address(value: object) -> tuple[str | None, str]:
    """(clean address, "") or (None, Korean reason)."""
    if not isinstance(value, str):
        return None, "새 배송지를 문자열로 알려 주세요."
    text = " ".join(value.split())
    if not text:
        return None, "새 배송지가 비어 있습니다."
    if len(text) < ADDRESS_MIN_LEN:
        return None, "새 배송지가 너무 짧습니다. 도로명과 상세주소까지 알려 주세요."
    if len(text) > ADDRESS_MAX_LEN:
        return None, f"새 배송지가 너무 깁니다({ADDRESS_MAX_LEN}자 이내)."
    if has_marker(text):
        # The model sees addresses masked outside the customer's current message; it must not copy a mask.
        return None, "가려진 주소로는 바꿀 수 없습니다. 새 배송지를 이번 메시지에 다시 적어 주세요."
    return text, ""


def address_change_decision(status: str) -> Decision:
    if status not in BEFORE_SHIPPING:
        return Decision(False, f"이미 '{status_label(status)}' 상태라 배송지를 바꿀 수 없습니다.")
    return Decision(True)


def _window_decision(
    *, delivered_at: date | None, today: date, reason_category: str, what: str, windows: Windows
) -> Decision:
    days = days_since(delivered_at, today)
    if reason_category == ReasonCategory.UNCLEAR:
        longest = max(windows.return_days, windows.defect_days)
        if days is not None and days > longest:
            # No reason could open the window again: refuse now instead of asking a pointless question.
            return Decision(
                False,
                f"배송 완료 후 {days}일이 지나 {what} 가능 기간({longest}일)을 넘었습니다.",
                days_since_delivery=days,
            )
        return Decision(False, CLARIFY_REASON, days_since_delivery=days, needs_clarification=True)
    limit = window_days(reason_category, windows)
    if days is not None and days > limit:
        return Decision(
            False, f"배송 완료 후 {days}일이 지나 {what} 가능 기간({limit}일)을 넘었습니다.", days_since_delivery=days
        )
    return Decision(True, days_since_delivery=days)


def exchange_decision(
    *, status: str, delivered_at: date | None, today: date, reason_category: str, windows: Windows
) -> Decision:
    if status != S.DELIVERED:
        return Decision(
            False,
            f"'{status_label(status)}' 상태의 주문은 교환을 접수할 수 없습니다. 교환은 배송 완료 후에 가능합니다.",
        )
    return _window_decision(
        delivered_at=delivered_at, today=today, reason_category=reason_category, what="교환", windows=windows
    )


def _refund_window(
    *, kind: str, delivered_at: date | None, today: date, reason_category: str, windows: Windows
) -> Decision:
    """The return window (반품), as the decision on a money request of `kind`."""
    decision = _window_decision(
        delivered_at=delivered_at, today=today, reason_category=reason_category, what="반품", windows=windows
    )
    return replace(decision, kind=kind)


def refund_decision(
    *, status: str, delivered_at: date | None, today: date, reason_category: str, windows: Windows
) -> Decision:
    """Before shipping → a cancel request (no reason needed); delivered → a refund within the window."""
    if status in BEFORE_SHIPPING:
        return Decision(True, kind=ActionRecord.Kind.CANCEL)
    if status == S.SHIPPING:
        return Decision(
            False,
            "이미 '배송중' 상태라 주문을 취소할 수 없습니다. 배송이 완료된 뒤 반품(환불)을 요청해 주세요.",
        )
    if status in CLOSED_STATUSES:
        return Decision(False, f"이미 '{status_label(status)}' 상태인 주문입니다.")
    return _refund_window(
        kind=ActionRecord.Kind.REFUND,
        delivered_at=delivered_at,
        today=today,
        reason_category=reason_category,
        windows=windows,
    )


def approval_decision(
    *,
    kind: str,
    status_now: str,
    delivered_at: date | None,
    requested_on: date,
    reason_category: str,
    windows: Windows,
) -> Decision:
    """Re-check a pending request against the order as it is now, before money moves.

    The window is counted to the day the customer asked (their right is fixed when they ask);
    the order's status is the one it has now (a cancel for an order that has shipped since cannot run).
    """
    if kind == ActionRecord.Kind.CANCEL:
        if status_now not in BEFORE_SHIPPING:
            return Decision(
                False,
                f"주문이 이미 '{status_label(status_now)}' 상태라 취소를 승인할 수 없습니다. "
                "반려한 뒤 고객에게 반품 절차를 안내해 주세요.",
            )
        return Decision(True, kind=kind)
    if kind == ActionRecord.Kind.REFUND:
        if status_now != S.DELIVERED:
            return Decision(False, f"주문이 '{status_label(status_now)}' 상태라 환불을 승인할 수 없습니다.")
        return _refund_window(
            kind=kind, delivered_at=delivered_at, today=requested_on, reason_category=reason_category, windows=windows
        )
    return Decision(False, "승인 대상이 아닌 요청입니다.")


# What the customer reads beside a request, by its state: plain words, and only what the record makes true.
# (noun, with 이/가, with 을/를)
_MONEY_WORDS = {
    ActionRecord.Kind.REFUND: ("환불", "환불이", "환불을"),
    ActionRecord.Kind.CANCEL: ("주문 취소", "주문 취소가", "주문 취소를"),
}


def money_kind_noun(kind: str) -> str | None:
    """What a money request of `kind` is called in a sentence (환불, 주문 취소); None for a kind that moves no
    money."""
    words = _MONEY_WORDS.get(kind)
    return words[0] if words else None


def customer_status_message(kind: str, status: str) -> str:
    R = ActionRecord.Status
    words = _MONEY_WORDS.get(kind)
    if words is None:  # address change, exchange: done directly, or refused
        return {R.DONE: "처리되었습니다.", R.REJECTED: "처리되지 않았습니다."}.get(status, "")
    noun, subj, obj = words
    return {
        R.PENDING: f"상담원 승인을 기다리고 있습니다. 승인 전에는 {noun} 처리되지 않습니다.",
        R.APPROVED: f"승인되었습니다. {noun} 처리를 시작합니다.",
        R.EXECUTING: f"승인되어 쇼핑몰에서 {obj} 진행하고 있습니다. 끝나면 여기에 표시됩니다.",
        R.DONE: f"{subj} 완료되었습니다.",
        R.REJECTED: f"{noun} 요청이 반려되었습니다. 결제는 그대로 유지됩니다.",
        R.FAILED: (
            f"쇼핑몰에서 {obj} 처리하지 못했습니다. 결제된 금액은 아직 돌려드리지 못했으며, "
            "상담원이 확인해 연락드리겠습니다."
        ),
    }.get(status, "")


# --- the statutory refund deadline ------------------------------------------------------------------------------
# 전자상거래 등에서의 소비자보호에 관한 법률 제18조 제2항: the seller refunds within 3 business days (영업일) of getting
# the goods back, or, for goods not yet supplied, of the cancellation; a late refund owes delay interest
# (지연배상금, 시행령 제21조의3: 연 15%) for the days past it.
REFUND_DEADLINE_BUSINESS_DAYS = 3
DEADLINE_OK, DEADLINE_AT_RISK, DEADLINE_OVERDUE = "ok", "at_risk", "overdue"
DEADLINE_MET, DEADLINE_LATE = "met", "late"
DEADLINE_LABELS = {
    DEADLINE_OK: "기한 내",
    DEADLINE_AT_RISK: "기한 임박",
    DEADLINE_OVERDUE: "기한 지남",
    DEADLINE_MET: "기한 내 환불",
    DEADLINE_LATE: "기한 지나 환불",
}
# Approved refunds and cancellations whose money may still be owed (EXECUTING: the shop is on it; FAILED: it could
# not) or has moved (APPROVED: the built-in shop refunds at approval; DONE: the shop reported it).
DEADLINE_STATUSES = frozenset({"APPROVED", "EXECUTING", "DONE", "FAILED"})
SETTLED_STATUSES = frozenset({"APPROVED", "DONE"})


def refund_deadline(*, approved_at: datetime, calendar: BusinessCalendar) -> date:
    """The last day the money may come back: the 3rd business day after the approval (the approval day itself is
    not counted).

    For a cancellation (goods not supplied) the law counts from the cancellation, which this desk makes final at
    approval. For a return the law counts from the day the returned goods arrive; this desk records no "goods
    arrived" event (neither the built-in shop nor the shop connection reports one), so the approval is used
    instead. When the goods came back before the approval, the legal deadline is earlier than the one shown: the
    desk cannot see that, so returns should be approved as soon as the goods are in."""
    return business_day_after(approved_at.astimezone(calendar.tz).date(), REFUND_DEADLINE_BUSINESS_DAYS, calendar)


def refund_deadline_state(*, deadline: date, today: date, settled_on: date | None, calendar: BusinessCalendar) -> str:
    """met / late once the money moved; otherwise overdue after the deadline, at risk on its last business day
    or the one before, ok before that."""
    if settled_on is not None:
        return DEADLINE_MET if settled_on <= deadline else DEADLINE_LATE
    if today > deadline:
        return DEADLINE_OVERDUE
    if business_day_after(today, 1, calendar) >= deadline:
        return DEADLINE_AT_RISK
    return DEADLINE_OK


@dataclass(frozen=True)
class Criterion:
    title: str
    lines: tuple[str, ...]


def automated_criteria(windows: Windows) -> list[Criterion]:
    """The rules the agent's tools apply by themselves, in words a customer reads (개인정보 보호법 제37조의2: the
    criteria of automated decisions are published). Built from the same constants and windows the decisions
    above use, so the page cannot say other than what the tools do."""
    before = "·".join(status_label(s) for s in sorted(BEFORE_SHIPPING, key=list(S.values).index))
    return [
        Criterion(
            "배송지 변경 (자동 처리)",
            (
                f"주문 상태가 {before}일 때만 바꿀 수 있습니다. 그 밖의 상태(예: {status_label(S.SHIPPING)})에서는 "
                "바꾸지 않습니다.",
                f"새 배송지는 {ADDRESS_MIN_LEN}자 이상 {ADDRESS_MAX_LEN}자 이내의 전체 주소여야 합니다.",
                "이전 배송지는 처리 기록에 남습니다.",
            ),
        ),
        Criterion(
            "교환 접수 (자동 처리)",
            (
                f"주문 상태가 {status_label(S.DELIVERED)}일 때만 접수합니다.",
                f"{ReasonCategory.CHANGE_OF_MIND.label}: 배송 완료 후 {windows.return_days}일 이내, "
                f"{ReasonCategory.DEFECT.label}·{ReasonCategory.WRONG_ITEM.label}: 배송 완료 후 "
                f"{windows.defect_days}일 이내에 접수할 수 있습니다.",
                "사유가 분명하지 않으면 처리하지 않고 사유를 여쭙니다.",
                "같은 상품의 다른 옵션으로만 교환되며, 그 옵션의 재고가 1개 이상 있어야 접수됩니다"
                "(재고는 접수 시 예약).",
                "한 주문은 한 번만 교환 접수할 수 있습니다.",
            ),
        ),
        Criterion(
            "환불·주문취소 (사람이 결정)",
            (
                f"{before} 주문은 주문취소요청, {status_label(S.DELIVERED)} 주문은 환불요청으로 접수되며, "
                "에이전트는 접수만 하고 결정은 담당자가 합니다.",
                f"환불 요청 기간은 교환과 같습니다({ReasonCategory.CHANGE_OF_MIND.label} {windows.return_days}일, "
                f"{ReasonCategory.DEFECT.label}·{ReasonCategory.WRONG_ITEM.label} {windows.defect_days}일).",
                f"승인된 환불은 승인 후 영업일 {REFUND_DEADLINE_BUSINESS_DAYS}일 이내에 처리합니다.",
            ),
        ),
    ]

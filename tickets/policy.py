"""The ticket desk's rules on plain values: no ORM, no settings, no clock.

Priority: which inquiries a person must look at sooner. SLA: the first-response, next-response and resolution
clocks per priority, counted in business hours (common.business_hours), stopped while the ticket waits on the
customer (답변완료), and their state (ok / at_risk / breached). The services pass in the settings and the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from common.business_hours import BusinessCalendar, business_add, business_seconds_between

OVERRIDE_REASON_MAX = 500  # why an operator sends a held answer anyway (a reply or a draft)


def normalise_reply(text: str) -> str:
    """What counts as the same text: line endings and surrounding whitespace do not."""
    return text.replace("\r\n", "\n").strip()


# --- priority -------------------------------------------------------------------------------------------------
URGENT, HIGH, NORMAL, LOW = "URGENT", "HIGH", "NORMAL", "LOW"
PRIORITIES = (URGENT, HIGH, NORMAL, LOW)  # most pressing first
# The categories a person must look at sooner: money that may have moved (결제), something broken (오류).
HIGH_CATEGORIES = frozenset({"PAYMENT", "ERROR"})
RULE_CATEGORY = "category"
RULE_REFUSED_MONEY = "refused_money_request"


def initial_priority(*, category: str, after_refused_money_request: bool) -> tuple[str, str]:
    """(priority, the rule that set it — "" for the default). 결제/오류 inquiries and a chat handoff after the
    agent refused a refund or cancellation are 높음; everything else starts 보통. 긴급 and 낮음 are an operator's
    call (ticket_priority_change)."""
    if after_refused_money_request:
        return HIGH, RULE_REFUSED_MONEY
    if category in HIGH_CATEGORIES:
        return HIGH, RULE_CATEGORY
    return NORMAL, ""


# --- SLA clocks -----------------------------------------------------------------------------------------------
OK, AT_RISK, BREACHED = "ok", "at_risk", "breached"
SLA_STATE_LABELS = {OK: "기한 내", AT_RISK: "기한 임박", BREACHED: "기한 초과"}
_RANK = {OK: 0, AT_RISK: 1, BREACHED: 2}


@dataclass(frozen=True)
class Targets:
    """Business seconds allowed, per clock (settings CS_SLA_TARGETS, in minutes)."""

    first_response: float
    next_response: float
    resolution: float


def sla_targets(priority: str, table: Mapping[str, Mapping[str, float]]) -> Targets:
    row = table.get(priority) or table[NORMAL]
    return Targets(
        first_response=row["first_response"] * 60,
        next_response=row["next_response"] * 60,
        resolution=row["resolution"] * 60,
    )


@dataclass(frozen=True)
class Clocks:
    """A ticket's SLA fields as plain values."""

    status: str  # OPEN / ANSWERED / CLOSED
    created_at: datetime
    first_response_due_at: datetime | None
    first_responded_at: datetime | None
    next_response_due_at: datetime | None
    resolution_due_at: datetime | None
    answered_at: datetime | None
    closed_at: datetime | None


def due_times(
    *, created_at: datetime, priority: str, paused_s: float, targets: Targets, calendar: BusinessCalendar
) -> tuple[datetime, datetime]:
    """(first response due, resolution due): counted in business time from the ticket's creation; the
    resolution clock is pushed back by the business time spent waiting on the customer."""
    return (
        business_add(created_at, targets.first_response, calendar),
        business_add(created_at, targets.resolution + paused_s, calendar),
    )


def running_dues(clocks: Clocks) -> list[tuple[str, datetime]]:
    """The clocks that run now, with their due times: none while the ticket waits on the customer (답변완료) or
    is closed; the first-response clock until the first reply; the next-response clock after a customer
    follow-up; the resolution clock."""
    if clocks.status != "OPEN":
        return []
    dues = []
    if clocks.first_responded_at is None and clocks.first_response_due_at is not None:
        dues.append(("first_response", clocks.first_response_due_at))
    if clocks.next_response_due_at is not None:
        dues.append(("next_response", clocks.next_response_due_at))
    if clocks.resolution_due_at is not None:
        dues.append(("resolution", clocks.resolution_due_at))
    return dues


def nearest_due(clocks: Clocks) -> datetime | None:
    dues = [due for _, due in running_dues(clocks)]
    return min(dues) if dues else None


def clock_state(*, due: datetime, target_s: float, at: datetime, calendar: BusinessCalendar, share: float) -> str:
    """breached once `at` reaches `due`; at risk when no more than `share` of the target is left (in business
    time); ok otherwise."""
    if at >= due:
        return BREACHED
    if business_seconds_between(at, due, calendar) <= share * target_s:
        return AT_RISK
    return OK


def _worst(states: list[str]) -> str:
    return max(states, key=_RANK.__getitem__) if states else OK


def sla_state(clocks: Clocks, *, now: datetime, targets: Targets, calendar: BusinessCalendar, share: float) -> str:
    """ok / at_risk / breached for the list and the API.

    - 접수 (OPEN): the worst of the running clocks at `now`.
    - 답변완료 (waiting on the customer): paused — the resolution clock as it stood when the answer went out.
    - 종료: the final verdict — breached if the first reply or the closing came after its due time.
    """
    if clocks.status == "CLOSED":
        late_first = (
            clocks.first_responded_at is not None
            and clocks.first_response_due_at is not None
            and clocks.first_responded_at > clocks.first_response_due_at
        )
        late_close = (
            clocks.closed_at is not None
            and clocks.resolution_due_at is not None
            and clocks.closed_at > clocks.resolution_due_at
        )
        return BREACHED if late_first or late_close else OK
    if clocks.status == "ANSWERED":
        if clocks.resolution_due_at is None or clocks.answered_at is None:
            return OK
        return clock_state(
            due=clocks.resolution_due_at,
            target_s=targets.resolution,
            at=clocks.answered_at,
            calendar=calendar,
            share=share,
        )
    target_of = {
        "first_response": targets.first_response,
        "next_response": targets.next_response,
        "resolution": targets.resolution,
    }
    return _worst(
        [
            clock_state(due=due, target_s=target_of[kind], at=now, calendar=calendar, share=share)
            for kind, due in running_dues(clocks)
        ]
    )


def auto_close_due(*, status: str, answered_at: datetime | None, now: datetime, after_days: float) -> bool:
    """An answered ticket (waiting on the customer) with no customer reply for `after_days` closes by itself."""
    return (
        status == "ANSWERED" and answered_at is not None and (now - answered_at).total_seconds() >= after_days * 86400
    )


# --- telling the customer an answer came ----------------------------------------------------------------------
REPLY_EXCERPT_MAX = 120  # the shop's `ticket.replied` excerpt: enough to say what the answer is about


def reply_excerpt(text: str, *, limit: int = REPLY_EXCERPT_MAX) -> str:
    """One line of the (already masked) answer: whitespace runs as one space, cut with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def thread_url(base_url: str, ticket_number: str) -> str:
    """Where the customer reads the thread: the chat page opens the ticket named in `?ticket=`."""
    return f"{base_url.rstrip('/')}/?ticket={ticket_number}"


def reply_notice_mail(*, name: str, ticket_number: str, url: str) -> tuple[str, str]:
    """The reply e-mail's subject and body. Nothing personal but the name: not the answer itself (it may quote an
    address or an order), not the customer's phone, address or e-mail — the link leads to the signed-in thread."""
    greeting = f"{name}님, 안녕하세요." if name.strip() else "안녕하세요."
    subject = f"[CS 데스크] 문의 {ticket_number}에 상담원 답변이 도착했습니다"
    body = (
        f"{greeting}\n\n"
        f"남겨 주신 문의 {ticket_number}에 상담원이 답변했습니다.\n"
        f"아래 주소에서 로그인한 뒤 답변을 확인해 주세요.\n\n"
        f"{url}\n\n"
        "답변 알림 메일은 채팅 화면의 알림 설정에서 끌 수 있습니다.\n"
        "이 메일은 발신 전용입니다."
    )
    return subject, body


# --- CSAT: the customer rates an answered ticket ---------------------------------------------------------------
CSAT_MIN, CSAT_MAX = 1, 5
CSAT_COMMENT_MAX = 500
CSAT_LOW = 2  # a score at or below this is listed for the team (it reopens nothing by itself)
RATABLE_STATUSES = frozenset({"ANSWERED", "CLOSED"})


def csat_low(score: int) -> bool:
    return score <= CSAT_LOW


def can_rate(*, status: str, rated: bool) -> bool:
    """Rated once, when answered (답변완료) or closed (종료); not while the desk owes an answer."""
    return status in RATABLE_STATUSES and not rated


DATA_REQUEST_DAYS = 10  # 개인정보 보호법 시행령 제41조제4항 (and 제44조, 제48조): answered within 10 days


def data_request_due(received: datetime, calendar: BusinessCalendar, days: int = DATA_REQUEST_DAYS) -> datetime:
    """When a customer's data request must be answered: the law's 10 days counted from the day after it came
    (the first day is not counted), brought back to the closing time of the last business day on or before
    then, so the desk answers within the law however holidays fall."""
    day = received.astimezone(calendar.tz).date() + timedelta(days=days)
    first = received.astimezone(calendar.tz).date()
    while day > first and not calendar.is_open_day(day):
        day -= timedelta(days=1)
    return calendar.window(day)[1]

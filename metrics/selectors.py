"""Operations metrics: one read over drafts, decisions, dead letters, approvals and agent chats.

Every figure is reported per Asia/Seoul calendar day and overall, each grouped by the timestamp that
says when the thing happened:

| section      | day of                          | rows                                                      |
|--------------|---------------------------------|-----------------------------------------------------------|
| drafts       | `Draft.input_at`                | every draft (latency, failures, runs/retries)            |
| decisions    | `Draft.decided_at`              | drafts APPLIED or REJECTED by an operator                 |
| dead_letters | `DeadLetter.created_at`         | every dead-lettered run                                   |
| approvals    | `created_at` for `requested`,   | REFUND/CANCEL action records                              |
|              | `decided_at` for decisions      |                                                           |
| chat         | `created_at`                    | ToolCall, assistant ChatMessage, AGENT/CHAT_FAILURE Ticket |
| tickets      | `Ticket.created_at`             | tickets with SLA clocks: business-hours first reply, SLA |
| refund_deadlines | `decided_at`                | approved refunds/cancels against the statutory deadline   |
| csat         | `TicketRating.created_at`       | the customers' 1–5 ratings, overall and per ticket category |

`now` is a snapshot that ignores the date filter (the approval queue, open dead letters and the refunds still
owed as they are). The number of queries is fixed (17): counts are aggregated in the database; only the
timestamps needed for percentiles and deadlines are fetched.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db.models import Case, Count, F, IntegerField, Max, Min, Q, QuerySet, Sum, When
from django.db.models.functions import TruncDate

from actions import policy as action_policy
from actions.models import ActionRecord
from actions.policy import CLARIFY_REASON
from actions.selectors import action_refund_deadline, with_settled_at
from chat.models import ChatMessage, ToolCall
from chat.tools import tool_error_label, tool_label
from common.business_hours import BusinessCalendar, business_calendar, business_seconds_between
from common.clock import SEOUL, now, today
from common.numbering import format_number
from drafts.models import DeadLetter, Draft, StageState
from metrics import stats
from metrics.policy import day_bounds, local_day, report_days
from tickets.models import Ticket, TicketRating
from tickets.policy import CSAT_LOW, CSAT_MAX, CSAT_MIN

STAGES = Draft.STAGES
LATENCIES = (("to_draft", "draft_at"), ("to_qa", "qa_at"), ("to_confidence", "confidence_at"))
MONEY_KINDS = ActionRecord.MONEY_KINDS
ESCALATION_SOURCES = (Ticket.Source.AGENT, Ticket.Source.CHAT_FAILURE)
DECIDED = (Draft.Status.APPLIED, Draft.Status.REJECTED)
FAILED_DRAFT = Q(status=Draft.Status.FAILED) | Q(
    *(Q(**{f"{stage}_state": StageState.FAILED}) for stage in STAGES), _connector=Q.OR
)


@dataclass
class _Tally:
    """Raw counts for one day (or the whole range) before rates and percentiles are taken."""

    drafts: int = 0
    failed: int = 0
    failed_stage: Counter = field(default_factory=Counter)
    runs: int = 0
    retries: int = 0
    latency: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name, _ in LATENCIES})
    # per ticket category: applied, rejected, unchanged, edited, edit_ratio_sum
    decisions: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    dead_letters: int = 0
    dead_letters_unresolved: int = 0
    requested: Counter = field(default_factory=Counter)  # kind -> count
    approved: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)
    decision_seconds: list[float] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    turns: int = 0
    tool_calls: Counter = field(default_factory=Counter)
    tool_ok: Counter = field(default_factory=Counter)
    refusals: Counter = field(default_factory=Counter)  # (tool, error, reason) -> count
    # The reason question (단순변심/상품하자/오배송?) is a tool answer with ok=False, but it refuses nothing:
    # counted apart from refusals, so the refusal rate does not count a question the agent asked.
    clarifications: Counter = field(default_factory=Counter)  # tool -> count
    escalations: Counter = field(default_factory=Counter)  # source -> count
    tickets: int = 0
    first_response: list[float] = field(default_factory=list)  # business seconds to the first operator reply
    sla: Counter = field(default_factory=Counter)  # first_met, first_missed, resolution_met, resolution_missed
    deadlines: Counter = field(default_factory=Counter)  # approved, met, late, overdue, open
    csat: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))  # category -> score -> n


class _Tallies:
    """One tally per day plus the overall one; every add goes to both."""

    def __init__(self) -> None:
        self.overall = _Tally()
        self.days: dict[date, _Tally] = defaultdict(_Tally)

    def both(self, day: date) -> tuple[_Tally, _Tally]:
        return self.days[day], self.overall


def metrics_compute(*, since: date | None, until: date | None) -> dict[str, Any]:
    """The operations report for the inclusive Asia/Seoul days `since`..`until` (None = open end).

    JSON-serialisable, with stable English keys; Korean labels sit next to category/kind/outcome codes.
    """
    start, end = day_bounds(since, until, SEOUL)
    tallies = _Tallies()
    _drafts(tallies, start, end)
    _decisions(tallies, start, end)
    _dead_letters(tallies, start, end)
    _approvals(tallies, start, end)
    _chat(tallies, start, end)
    calendar = business_calendar()
    _tickets(tallies, start, end, calendar)
    _refund_deadlines(tallies, start, end, calendar)
    _csat(tallies, start, end)
    days = report_days(since, until, tallies.days)
    return {
        "range": {
            "since": since.isoformat() if since else None,
            "until": until.isoformat() if until else None,
            "timezone": "Asia/Seoul",
            "percentile_method": "nearest-rank",
        },
        "now": {**_now(), **_refunds_owed(calendar)},
        "overall": _section(tallies.overall),
        "days": [{"date": day.isoformat(), **_section(tallies.days.get(day) or _Tally())} for day in days],
    }


def metrics_activity_span() -> tuple[date | None, date | None]:
    """The first and the last Asia/Seoul day on which anything the report counts happened (None, None when
    nothing has). The dashboard's default range ends at the last one (metrics.policy.default_range)."""
    moments = [
        *Draft.objects.aggregate(a=Min("input_at"), b=Max("input_at"), c=Max("decided_at")).values(),
        *DeadLetter.objects.aggregate(a=Min("created_at"), b=Max("created_at")).values(),
        *ActionRecord.objects.filter(kind__in=MONEY_KINDS)
        .aggregate(a=Min("created_at"), b=Max("created_at"), c=Max("decided_at"))
        .values(),
        *ToolCall.objects.aggregate(a=Min("created_at"), b=Max("created_at")).values(),
        *ChatMessage.objects.filter(role=ChatMessage.Role.ASSISTANT)
        .aggregate(a=Min("created_at"), b=Max("created_at"))
        .values(),
        *Ticket.objects.filter(source__in=ESCALATION_SOURCES)
        .aggregate(a=Min("created_at"), b=Max("created_at"))
        .values(),
    ]
    days = [local_day(moment, SEOUL) for moment in moments if moment is not None]
    return (min(days), max(days)) if days else (None, None)


# --- queries -------------------------------------------------------------------------------------


def _in_range(queryset: QuerySet, field_name: str, start: datetime | None, end: datetime | None) -> QuerySet:
    if start is not None:
        queryset = queryset.filter(**{f"{field_name}__gte": start})
    if end is not None:
        queryset = queryset.filter(**{f"{field_name}__lt": end})
    return queryset


def _by_day(queryset: QuerySet, field_name: str, start: datetime | None, end: datetime | None, *keys: str):
    """GROUP BY the Seoul day of `field_name` (and `keys`); the caller adds the aggregates."""
    return (
        _in_range(queryset, field_name, start, end)
        .annotate(day=TruncDate(field_name, tzinfo=SEOUL))
        .values("day", *keys)
        .order_by()
    )


def _drafts(tallies: _Tallies, start: datetime | None, end: datetime | None) -> None:
    failed_stage = {
        f"failed_{stage}": Count("id", filter=Q(**{f"{stage}_state": StageState.FAILED})) for stage in STAGES
    }
    rows = _by_day(Draft.objects.all(), "input_at", start, end).annotate(
        drafts=Count("id"),
        failed=Count("id", filter=FAILED_DRAFT),
        runs=Sum("attempts"),
        retries=Sum(Case(When(attempts__gt=0, then=F("attempts") - 1), default=0, output_field=IntegerField())),
        **failed_stage,
    )
    for row in rows:
        for tally in tallies.both(row["day"]):
            tally.drafts += row["drafts"]
            tally.failed += row["failed"]
            tally.runs += row["runs"] or 0
            tally.retries += row["retries"] or 0
            for stage in STAGES:
                tally.failed_stage[stage] += row[f"failed_{stage}"]
    # Percentiles need the values themselves: fetch only the four timestamps.
    timings = _in_range(Draft.objects.all(), "input_at", start, end).values_list(
        "input_at", *(column for _, column in LATENCIES)
    )
    for input_at, *done_at in timings.order_by():
        for tally in tallies.both(local_day(input_at, SEOUL)):
            for (name, _), finished in zip(LATENCIES, done_at, strict=True):
                seconds = stats.seconds_between(input_at, finished)
                if seconds is not None:
                    tally.latency[name].append(seconds)


def _decisions(tallies: _Tallies, start: datetime | None, end: datetime | None) -> None:
    applied = Q(status=Draft.Status.APPLIED)
    # Aggregate aliases must not shadow model fields (`applied` is one), hence the n_ prefix.
    rows = _by_day(Draft.objects.filter(status__in=DECIDED), "decided_at", start, end, "ticket__category").annotate(
        n_applied=Count("id", filter=applied),
        n_rejected=Count("id", filter=Q(status=Draft.Status.REJECTED)),
        n_unchanged=Count("id", filter=applied & Q(applied=Draft.Applied.UNCHANGED)),
        n_edited=Count("id", filter=applied & Q(applied=Draft.Applied.EDITED)),
        n_overridden=Count("id", filter=applied & Q(override_at__isnull=False)),
        edit_ratio_sum=Sum("edit_ratio", filter=applied),
    )
    for row in rows:
        if row["day"] is None:  # decided but never stamped: no day to put it on
            continue
        for tally in tallies.both(row["day"]):
            counts = tally.decisions[row["ticket__category"]]
            for key in ("applied", "rejected", "unchanged", "edited", "overridden"):
                counts[key] += row[f"n_{key}"]
            counts["edit_ratio_sum"] += row["edit_ratio_sum"] or 0.0


def _dead_letters(tallies: _Tallies, start: datetime | None, end: datetime | None) -> None:
    rows = _by_day(DeadLetter.objects.all(), "created_at", start, end).annotate(
        total=Count("id"), unresolved=Count("id", filter=Q(resolved_at__isnull=True))
    )
    for row in rows:
        for tally in tallies.both(row["day"]):
            tally.dead_letters += row["total"]
            tally.dead_letters_unresolved += row["unresolved"]


def _approvals(tallies: _Tallies, start: datetime | None, end: datetime | None) -> None:
    money = ActionRecord.objects.filter(kind__in=MONEY_KINDS)
    for row in _by_day(money, "created_at", start, end, "kind").annotate(n=Count("id")):
        for tally in tallies.both(row["day"]):
            tally.requested[row["kind"]] += row["n"]
    decided = money.filter(
        status__in=(ActionRecord.Status.APPROVED, ActionRecord.Status.REJECTED), decided_at__isnull=False
    )
    rows = _by_day(decided, "decided_at", start, end, "kind").annotate(
        approved=Count("id", filter=Q(status=ActionRecord.Status.APPROVED)),
        rejected=Count("id", filter=Q(status=ActionRecord.Status.REJECTED)),
    )
    for row in rows:
        for tally in tallies.both(row["day"]):
            tally.approved[row["kind"]] += row["approved"]
            tally.rejected[row["kind"]] += row["rejected"]
    for created_at, decided_at in (
        _in_range(decided, "decided_at", start, end).values_list("created_at", "decided_at").order_by()
    ):
        for tally in tallies.both(local_day(decided_at, SEOUL)):
            tally.decision_seconds.append(stats.seconds_between(created_at, decided_at))


def _chat(tallies: _Tallies, start: datetime | None, end: datetime | None) -> None:
    calls = _by_day(ToolCall.objects.all(), "created_at", start, end, "tool").annotate(
        calls=Count("id"), ok=Count("id", filter=Q(ok=True))
    )
    for row in calls:
        for tally in tallies.both(row["day"]):
            tally.tool_calls[row["tool"]] += row["calls"]
            tally.tool_ok[row["tool"]] += row["ok"]
    refused = _by_day(ToolCall.objects.filter(ok=False), "created_at", start, end, "tool", "error", "reason")
    for row in refused.annotate(n=Count("id")):
        for tally in tallies.both(row["day"]):
            if row["reason"] == CLARIFY_REASON:
                tally.clarifications[row["tool"]] += row["n"]
            else:
                tally.refusals[(row["tool"], row["error"], row["reason"])] += row["n"]
    replies = ChatMessage.objects.filter(role=ChatMessage.Role.ASSISTANT)
    for row in _by_day(replies, "created_at", start, end, "outcome").annotate(n=Count("id")):
        for tally in tallies.both(row["day"]):
            tally.turns += row["n"]
            tally.outcomes[row["outcome"]] += row["n"]
    escalated = Ticket.objects.filter(source__in=ESCALATION_SOURCES)
    for row in _by_day(escalated, "created_at", start, end, "source").annotate(n=Count("id")):
        for tally in tallies.both(row["day"]):
            tally.escalations[row["source"]] += row["n"]


def _tickets(tallies: _Tallies, start: datetime | None, end: datetime | None, calendar: BusinessCalendar) -> None:
    """First-response time in business hours (the clock customers are promised) and the SLA's attainment:
    a first reply on time (or its due time passed without one), a closing before the resolution due time."""
    at = now()
    # The tickets the SLA clocks cover (opened through tickets.services; rows written without them have no due).
    covered = Ticket.objects.filter(first_response_due_at__isnull=False)
    rows = _in_range(covered, "created_at", start, end).values_list(
        "created_at", "first_response_due_at", "first_responded_at", "resolution_due_at", "closed_at", "status"
    )
    for created_at, first_due, first_at, resolution_due, closed_at, status in rows.order_by():
        for tally in tallies.both(local_day(created_at, SEOUL)):
            tally.tickets += 1
            if first_at is not None:
                tally.first_response.append(max(0.0, business_seconds_between(created_at, first_at, calendar)))
            if first_due is not None and first_at is not None:
                tally.sla["first_met" if first_at <= first_due else "first_missed"] += 1
            elif first_due is not None and at > first_due:
                tally.sla["first_missed"] += 1
            if status == Ticket.Status.CLOSED and resolution_due is not None and closed_at is not None:
                tally.sla["resolution_met" if closed_at <= resolution_due else "resolution_missed"] += 1


def _csat(tallies: _Tallies, start: datetime | None, end: datetime | None) -> None:
    """The customers' ratings by the day they rated, per the ticket's category when rated."""
    rows = _by_day(TicketRating.objects.all(), "created_at", start, end, "category", "score").annotate(n=Count("id"))
    for row in rows:
        for tally in tallies.both(row["day"]):
            tally.csat[row["category"]][row["score"]] += row["n"]


LOW_CSAT_LISTED = 50


def csat_low_list(*, since: date | None, until: date | None) -> list[dict[str, Any]]:
    """The low ratings (≤ CSAT_LOW) rated on the Asia/Seoul days `since`..`until`, newest first, at most
    LOW_CSAT_LISTED: they reopen nothing by themselves, a person reads them (the dashboard's list, its JSON's
    `low_csat`, and the admin's 고객 평가 list filtered 낮은 평가). One query."""
    start, end = day_bounds(since, until, SEOUL)
    low = _in_range(TicketRating.objects.filter(score__lte=CSAT_LOW), "created_at", start, end)
    rows = low.order_by("-created_at", "-id").values(
        "ticket_id", "score", "comment", "category", "created_at", "ticket__status"
    )[:LOW_CSAT_LISTED]
    return [
        {
            "ticket_id": format_number("T", row["ticket_id"]),
            "ticket_pk": row["ticket_id"],
            "score": row["score"],
            "comment": row["comment"],
            "category": row["category"],
            "label": Ticket.Category(row["category"]).label,
            "status": row["ticket__status"],
            "rated_at": row["created_at"].astimezone(SEOUL).isoformat(),
        }
        for row in rows
    ]


def _approved_money() -> QuerySet[ActionRecord]:
    return with_settled_at(
        ActionRecord.objects.filter(
            kind__in=MONEY_KINDS, status__in=action_policy.DEADLINE_STATUSES, decided_at__isnull=False
        )
    ).only("id", "kind", "status", "decided_at")


def _refund_deadlines(
    tallies: _Tallies, start: datetime | None, end: datetime | None, calendar: BusinessCalendar
) -> None:
    """Approved refunds and cancellations (by the day of approval) against the statutory deadline (전자상거래법
    제18조: 3 business days): refunded by then, refunded late, still owed and overdue, still owed."""
    on = today()
    for record in _in_range(_approved_money(), "decided_at", start, end).order_by():
        view = action_refund_deadline(record, today=on, calendar=calendar)
        for tally in tallies.both(local_day(record.decided_at, SEOUL)):
            tally.deadlines["approved"] += 1
            tally.deadlines[view.state] += 1


def _refunds_owed(calendar: BusinessCalendar) -> dict[str, int]:
    """Approved money not yet back (the shop is on it, or reported it could not): how many are at risk or late."""
    on = today()
    owed = _approved_money().filter(status__in=(ActionRecord.Status.EXECUTING, ActionRecord.Status.FAILED))
    states = Counter(action_refund_deadline(r, today=on, calendar=calendar).state for r in owed.order_by())
    return {
        "refunds_owed": sum(states.values()),
        "refunds_at_risk": states[action_policy.DEADLINE_AT_RISK],
        "refunds_overdue": states[action_policy.DEADLINE_OVERDUE],
    }


def _now() -> dict[str, Any]:
    pending = ActionRecord.objects.filter(kind__in=MONEY_KINDS, status=ActionRecord.Status.PENDING)
    queue = pending.aggregate(
        total=Count("id"),
        oldest=Min("created_at"),
        **{kind.lower(): Count("id", filter=Q(kind=kind)) for kind in MONEY_KINDS},
    )
    return {
        "pending_approvals": queue["total"],
        "pending_by_kind": [
            {"kind": kind.value, "label": kind.label, "count": queue[kind.lower()]} for kind in MONEY_KINDS
        ],
        "oldest_pending_since": queue["oldest"].astimezone(SEOUL).isoformat() if queue["oldest"] else None,
        "unresolved_dead_letters": DeadLetter.objects.filter(resolved_at__isnull=True).count(),
    }


# --- one section (a day or the whole range) ------------------------------------------------------


def _section(t: _Tally) -> dict[str, Any]:
    return {
        "drafts": {
            "created": t.drafts,
            "latency_seconds": {name: stats.duration_summary(t.latency[name]) for name, _ in LATENCIES},
            "failed": t.failed,
            "failed_by_stage": {stage: t.failed_stage[stage] for stage in STAGES},
            "runs": t.runs,
            "retries": t.retries,
        },
        "decisions": _decisions_section(t.decisions),
        "dead_letters": {"total": t.dead_letters, "unresolved": t.dead_letters_unresolved},
        "approvals": _approvals_section(t),
        "chat": _chat_section(t),
        "tickets": _tickets_section(t),
        "refund_deadlines": _deadlines_section(t),
        "csat": _csat_section(t),
    }


def _csat_numbers(scores: Counter) -> dict[str, Any]:
    rated = sum(scores.values())
    total = sum(score * n for score, n in scores.items())
    low = sum(n for score, n in scores.items() if score <= CSAT_LOW)
    return {
        "rated": rated,
        "average": stats.mean(total, rated),
        # The usual CSAT figure: the share of 4s and 5s.
        "satisfied_share": stats.rate(sum(n for score, n in scores.items() if score >= CSAT_MAX - 1), rated),
        "low": low,
        "by_score": {str(score): scores[score] for score in range(CSAT_MIN, CSAT_MAX + 1)},
    }


def _csat_section(t: _Tally) -> dict[str, Any]:
    overall: Counter = Counter()
    for scores in t.csat.values():
        overall.update(scores)
    return {
        **_csat_numbers(overall),
        "by_category": [
            {
                "category": category.value,
                "label": category.label,
                **_csat_numbers(t.csat.get(category.value, Counter())),
            }
            for category in Ticket.Category
        ],
    }


def _tickets_section(t: _Tally) -> dict[str, Any]:
    first_met, first_missed = t.sla["first_met"], t.sla["first_missed"]
    resolution_met, resolution_missed = t.sla["resolution_met"], t.sla["resolution_missed"]
    return {
        "created": t.tickets,
        # Business seconds from the ticket to the first operator reply (nights, weekends, holidays not counted).
        "first_response_seconds": stats.duration_summary(t.first_response),
        "sla": {
            "first_response_met": first_met,
            "first_response_missed": first_missed,
            "first_response_attainment": stats.rate(first_met, first_met + first_missed),
            "resolution_met": resolution_met,
            "resolution_missed": resolution_missed,
            "resolution_attainment": stats.rate(resolution_met, resolution_met + resolution_missed),
        },
    }


def _deadlines_section(t: _Tally) -> dict[str, Any]:
    d = t.deadlines
    settled = d[action_policy.DEADLINE_MET] + d[action_policy.DEADLINE_LATE]
    return {
        "approved": d["approved"],
        "refunded_on_time": d[action_policy.DEADLINE_MET],
        "refunded_late": d[action_policy.DEADLINE_LATE],
        "owed_overdue": d[action_policy.DEADLINE_OVERDUE],
        "owed_at_risk": d[action_policy.DEADLINE_AT_RISK],
        "owed_in_time": d[action_policy.DEADLINE_OK],
        "on_time_rate": stats.rate(d[action_policy.DEADLINE_MET], settled + d[action_policy.DEADLINE_OVERDUE]),
    }


def _decisions_section(by_category: dict[str, Counter]) -> dict[str, Any]:
    total: Counter = Counter()
    for counts in by_category.values():
        total.update(counts)
    applied, rejected = total["applied"], total["rejected"]
    categories = []
    for category in Ticket.Category:
        counts = by_category.get(category.value, Counter())
        decided = counts["applied"] + counts["rejected"]
        categories.append(
            {
                "category": category.value,
                "label": category.label,
                "decided": decided,
                "applied": counts["applied"],
                "rejected": counts["rejected"],
                "rejection_rate": stats.rate(counts["rejected"], decided),
            }
        )
    return {
        "decided": applied + rejected,
        "applied": applied,
        "rejected": rejected,
        "adoption_rate": stats.rate(applied, applied + rejected),
        "unchanged": total["unchanged"],
        "edited": total["edited"],
        # Sent although held (a money claim, or QA/confidence unfinished or failed), with a recorded reason.
        "overridden": total["overridden"],
        "unchanged_share": stats.rate(total["unchanged"], applied),
        "edited_share": stats.rate(total["edited"], applied),
        "avg_edit_ratio": stats.mean(total["edit_ratio_sum"], applied),
        "by_category": categories,
    }


def _approvals_section(t: _Tally) -> dict[str, Any]:
    approved, rejected = sum(t.approved.values()), sum(t.rejected.values())
    return {
        "requested": sum(t.requested.values()),
        "decided": approved + rejected,
        "approved": approved,
        "rejected": rejected,
        "approval_rate": stats.rate(approved, approved + rejected),
        "decision_seconds": stats.duration_summary(t.decision_seconds),
        "by_kind": [
            {
                "kind": kind.value,
                "label": kind.label,
                "requested": t.requested[kind.value],
                "approved": t.approved[kind.value],
                "rejected": t.rejected[kind.value],
            }
            for kind in MONEY_KINDS
        ],
    }


def _chat_section(t: _Tally) -> dict[str, Any]:
    calls = sum(t.tool_calls.values())
    clarifications = sum(t.clarifications.values())
    refused = calls - sum(t.tool_ok.values()) - clarifications
    escalations = sum(t.escalations.values())
    outcomes = [
        {"outcome": outcome.value, "label": outcome.label, "count": t.outcomes[outcome.value]}
        for outcome in ChatMessage.Outcome
    ]
    # Replies stored without an outcome (or with a code added later) are counted, not hidden.
    known = {outcome.value for outcome in ChatMessage.Outcome}
    outcomes += [
        {"outcome": code, "label": code or "기록 없음", "count": n}
        for code, n in sorted(t.outcomes.items())
        if code not in known and n
    ]
    claims_blocked = t.outcomes[ChatMessage.Outcome.CLAIM_BLOCKED]
    return {
        "turns": t.turns,
        "outcomes": outcomes,
        # Replies whose model text claimed a refund or cancellation the records did not show (replaced by code).
        "claims_blocked": claims_blocked,
        "claim_block_rate": stats.rate(claims_blocked, t.turns),
        "tool_calls": calls,
        "refused": refused,
        "refusal_rate": stats.rate(refused, calls),
        "clarifications": clarifications,
        "by_tool": [
            {
                "tool": tool,
                "label": tool_label(tool),
                "calls": t.tool_calls[tool],
                "ok": t.tool_ok[tool],
                "clarified": t.clarifications[tool],
                "refused": t.tool_calls[tool] - t.tool_ok[tool] - t.clarifications[tool],
            }
            for tool in sorted(t.tool_calls)
        ],
        "refusal_reasons": [
            {
                "tool": tool,
                "label": tool_label(tool),
                "error": error,
                "error_label": tool_error_label(error),
                "reason": reason,
                "count": n,
            }
            for (tool, error, reason), n in sorted(t.refusals.items(), key=lambda item: (-item[1], item[0]))
        ],
        "escalations": escalations,
        "escalation_rate": stats.rate(escalations, t.turns),
        "escalations_by_source": [
            {"source": source.value, "label": source.label, "count": t.escalations[source.value]}
            for source in ESCALATION_SOURCES
        ],
    }

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery

from common import clock
from common.actors import Person
from common.business_hours import BusinessCalendar, business_calendar
from common.errors import NotFound
from common.numbering import parse_number
from orders.models import Customer
from tickets import policy
from tickets.models import Ticket, TicketEvent, TicketMessage, TicketRating


def customer_ticket_get(*, customer: Customer, ticket_id: str) -> Ticket:
    """The customer's own ticket; anyone else's answers exactly like a missing one."""
    pk = parse_number("T", ticket_id)
    ticket = Ticket.objects.filter(pk=pk, customer=customer).first() if pk else None
    if ticket is None:
        raise NotFound("티켓을 찾을 수 없습니다.")
    return ticket


def customer_ticket_list(*, customer: Customer) -> QuerySet[Ticket]:
    """The customer's own tickets, newest first, each with `unread`: operator replies since the customer
    last opened the thread."""
    unread = Count(
        "messages",
        filter=Q(messages__author_type=TicketMessage.Author.OPERATOR)
        & (Q(customer_seen_at__isnull=True) | Q(messages__created_at__gt=F("customer_seen_at"))),
    )
    return Ticket.objects.filter(customer=customer).select_related("rating").annotate(unread=unread).order_by("-id")


def ticket_rating_of(ticket: Ticket) -> TicketRating | None:
    """The ticket's rating, or None (a ticket loaded with select_related("rating") asks nothing more)."""
    try:
        return ticket.rating
    except TicketRating.DoesNotExist:
        return None


def customer_unread_count(*, customer_id: str) -> int:
    """Operator answers the customer has not seen yet, over all their tickets (the chat page's badge), in one
    query: an answer after the ticket was last opened (in its thread or in the conversation that shows it)."""
    return TicketMessage.objects.filter(
        Q(ticket__customer_seen_at__isnull=True) | Q(created_at__gt=F("ticket__customer_seen_at")),
        ticket__customer_id=customer_id,
        author_type=TicketMessage.Author.OPERATOR,
    ).count()


def _latest_customer_messages() -> QuerySet[TicketMessage]:
    return TicketMessage.objects.filter(author_type=TicketMessage.Author.CUSTOMER).order_by("-id")


def ticket_latest_customer_message_id(ticket_id: int) -> int | None:
    """The ticket's newest customer message: the only input a draft may still be built from or sent for."""
    return _latest_customer_messages().filter(ticket_id=ticket_id).values_list("id", flat=True).first()


def with_latest_customer_message(tickets: QuerySet[Ticket]) -> QuerySet[Ticket]:
    """The same, for many tickets in one query: annotates `latest_customer_message_id`."""
    latest = _latest_customer_messages().filter(ticket_id=OuterRef("pk")).values("id")[:1]
    return tickets.annotate(latest_customer_message_id=Subquery(latest))


def customer_visible_messages(ticket: Ticket) -> QuerySet[TicketMessage]:
    """System notes are for operators; customers see their own words and operator replies."""
    return ticket.messages.exclude(author_type=TicketMessage.Author.SYSTEM).order_by("id")


def ticket_get(*, ticket_id: str) -> Ticket:
    pk = parse_number("T", ticket_id)
    ticket = Ticket.objects.select_related("customer", "order", "assignee").filter(pk=pk).first() if pk else None
    if ticket is None:
        raise NotFound("티켓을 찾을 수 없습니다.")
    return ticket


UNASSIGNED = "none"  # the assignee filter's word for "nobody"


def ticket_list(
    *, status: str | None = None, category: str | None = None, assignee: Person | str | None = None
) -> QuerySet[Ticket]:
    """Tickets for operators, newest first. `assignee`: a user (their tickets), UNASSIGNED, or None (all)."""
    tickets = (
        Ticket.objects.select_related("customer", "assignee")
        .prefetch_related(Prefetch("tags", to_attr="tag_list"))
        .order_by("-id")
    )
    if status:
        tickets = tickets.filter(status=status)
    if category:
        tickets = tickets.filter(category=category)
    if assignee == UNASSIGNED:
        tickets = tickets.filter(assignee__isnull=True)
    elif assignee is not None:
        tickets = tickets.filter(assignee=assignee)
    return tickets


def operator_get(*, username: str) -> Person | None:
    """An active staff user by login name (an assignee, a filter value); None when there is none."""
    return get_user_model().objects.filter(username=username, is_active=True, is_staff=True).first()


# --- SLA as people read it --------------------------------------------------------------------------------------
def sla_clocks(ticket: Ticket) -> policy.Clocks:
    return policy.Clocks(
        status=ticket.status,
        created_at=ticket.created_at,
        first_response_due_at=ticket.first_response_due_at,
        first_responded_at=ticket.first_responded_at,
        next_response_due_at=ticket.next_response_due_at,
        resolution_due_at=ticket.resolution_due_at,
        answered_at=ticket.answered_at,
        closed_at=ticket.closed_at,
    )


@dataclass(frozen=True)
class SlaSnapshot:
    """What every ticket's SLA state on one page is computed against: one clock reading, one calendar."""

    now: datetime
    calendar: BusinessCalendar
    targets: dict
    at_risk_share: float


def sla_snapshot() -> SlaSnapshot:
    return SlaSnapshot(
        now=clock.now(),
        calendar=business_calendar(),
        targets=settings.CS_SLA_TARGETS,
        at_risk_share=float(settings.CS_SLA_AT_RISK_SHARE),
    )


@dataclass(frozen=True)
class SlaView:
    state: str  # ok / at_risk / breached
    paused: bool  # waiting on the customer: no clock runs
    first_response_due_at: datetime | None
    next_response_due_at: datetime | None
    resolution_due_at: datetime | None  # None while paused (it moves by the time the customer takes)

    @property
    def label(self) -> str:
        return policy.SLA_STATE_LABELS[self.state]


def ticket_sla(ticket: Ticket, snapshot: SlaSnapshot) -> SlaView:
    clocks = sla_clocks(ticket)
    paused = ticket.status == Ticket.Status.ANSWERED
    return SlaView(
        state=policy.sla_state(
            clocks,
            now=snapshot.now,
            targets=policy.sla_targets(ticket.priority, snapshot.targets),
            calendar=snapshot.calendar,
            share=snapshot.at_risk_share,
        ),
        paused=paused,
        first_response_due_at=ticket.first_response_due_at,
        next_response_due_at=ticket.next_response_due_at,
        resolution_due_at=None if paused else ticket.resolution_due_at,
    )


def ticket_events_since_marker(*, customer_id: str | None = None) -> QuerySet[TicketEvent]:
    """The rows whose arrival means a ticket list may show something new (common.live): every ticket's audit
    rows for staff, or only those of one customer's own tickets."""
    events = TicketEvent.objects.all()
    return events if customer_id is None else events.filter(ticket__customer_id=customer_id)

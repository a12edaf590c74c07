from __future__ import annotations

from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery

from common.errors import NotFound
from common.numbering import parse_number
from orders.models import Customer
from tickets.models import Ticket, TicketMessage


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
    return Ticket.objects.filter(customer=customer).annotate(unread=unread).order_by("-id")


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
    ticket = Ticket.objects.select_related("customer", "order").filter(pk=pk).first() if pk else None
    if ticket is None:
        raise NotFound("티켓을 찾을 수 없습니다.")
    return ticket


def ticket_list(*, status: str | None = None, category: str | None = None) -> QuerySet[Ticket]:
    tickets = (
        Ticket.objects.select_related("customer").prefetch_related(Prefetch("tags", to_attr="tag_list")).order_by("-id")
    )
    if status:
        tickets = tickets.filter(status=status)
    if category:
        tickets = tickets.filter(category=category)
    return tickets

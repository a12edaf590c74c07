from __future__ import annotations

from django.db.models import Prefetch, QuerySet

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

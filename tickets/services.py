from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from orders.models import Customer, Order
from tickets.models import Ticket, TicketMessage

log = logging.getLogger(__name__)

SUBJECT_MAX = 200
BODY_MAX = 4000


def parse_category(value: object) -> str:
    """English code or Korean label; anything else is 기타 (a person will re-file it)."""
    if isinstance(value, str):
        text = value.strip()
        for choice in Ticket.Category:
            if text in (choice.value, choice.label):
                return choice.value
    return Ticket.Category.OTHER


def ticket_create(
    *,
    customer: Customer,
    category: object,
    subject: str,
    body: str,
    source: str,
    author: AbstractBaseUser | None,
    order: Order | None = None,
) -> Ticket:
    """Open a ticket whose first message is the customer's words."""
    subject_text = " ".join(subject.split())[:SUBJECT_MAX] or "문의"
    with transaction.atomic():
        ticket = Ticket.objects.create(
            customer=customer, category=parse_category(category), subject=subject_text, source=source, order=order
        )
        TicketMessage.objects.create(
            ticket=ticket, author_type=TicketMessage.Author.CUSTOMER, author=author, body=body[:BODY_MAX] or subject_text
        )
    log.info("ticket.created ticket_id=%s source=%s category=%s", ticket.number, source, ticket.category)
    return ticket

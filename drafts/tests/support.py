"""Helpers the drafts' tests share."""

from __future__ import annotations

from tickets.models import Ticket
from tickets.services import ticket_create


def inquiry(customer, body: str = "언제 와요?", *, category: str = "배송", subject: str = "배송") -> Ticket:
    """A customer's inquiry through the API path: its draft is requested when the transaction commits."""
    return ticket_create(
        customer=customer, category=category, subject=subject, body=body, source="API", author=customer.user
    )

"""Helpers the drafts' tests share."""

from __future__ import annotations

from actions.models import ActionRecord
from actions.services import refund_request
from common.actors import Actor
from tickets.models import Ticket
from tickets.services import ticket_create


def inquiry(customer, body: str = "언제 와요?", *, category: str = "배송", subject: str = "배송") -> Ticket:
    """A customer's inquiry through the API path: its draft is requested when the transaction commits."""
    return ticket_create(
        customer=customer, category=category, subject=subject, body=body, source="API", author=customer.user
    )


def refund_asked(customer, order_id: str, *, reason: str, category: str) -> ActionRecord:
    """A refund the customer asked the agent for: PENDING until a person decides."""
    return refund_request(
        customer=customer,
        order_id=order_id,
        reason=reason,
        reason_category=category,
        actor=Actor.customer_agent(customer),
    ).record

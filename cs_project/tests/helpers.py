"""Records the cs_project tests make the way a customer would."""

from __future__ import annotations

from orders.models import Customer, Order
from tickets.models import Ticket
from tickets.services import ticket_create


def customer_inquiry(
    customer: Customer,
    *,
    category: str = "오류",
    subject: str = "결제 오류",
    body: str = "결제하면 오류가 나요.",
    order: Order | None = None,
) -> Ticket:
    """The customer's inquiry through the API (an error inquiry unless told otherwise), its draft requested."""
    return ticket_create(
        customer=customer,
        category=category,
        subject=subject,
        body=body,
        source="API",
        author=customer.user,
        order=order,
    )

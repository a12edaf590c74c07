"""Records the tests of actions, and of the apps above it, make the way a customer would."""

from __future__ import annotations

from actions.models import ActionRecord
from actions.services import refund_request
from common.actors import Actor
from orders.models import Customer


def defect_refund(reason: str, *, customer_id: str = "C003", order_id: str = "HR20260721001") -> ActionRecord:
    """The customer's agent asks for a refund of a defective order: 승인대기."""
    customer = Customer.objects.get(pk=customer_id)
    return refund_request(
        customer=customer,
        order_id=order_id,
        reason=reason,
        reason_category="DEFECT",
        actor=Actor.customer_agent(customer),
    ).record

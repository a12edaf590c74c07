"""Requests for tests where the particular demo order is not the point."""

from __future__ import annotations

from actions.models import ActionRecord
from actions.services import refund_request
from common.actors import Actor
from common.tests.factories import operator_with
from orders.models import Order
from orders.tests.factories import OrderFactory

DECIDER_PERMISSIONS = ("actions.view_actionrecord", "actions.decide")


def decider(**fields):
    """A staff user who reads requests on the admin and approves or rejects them."""
    return operator_with(*DECIDER_PERMISSIONS, **fields)


def refund_requested(
    order: Order | None = None, *, reason: str = "밑창이 떨어졌어요", category: str = "DEFECT"
) -> ActionRecord:
    """The order's customer asks the agent for a refund, pending approval; by default of an order delivered two
    days ago (well within every refund window)."""
    order = order or OrderFactory(delivered_days_ago=2)
    return refund_request(
        customer=order.customer,
        order_id=order.order_id,
        reason=reason,
        reason_category=category,
        actor=Actor.customer_agent(order.customer),
    ).record

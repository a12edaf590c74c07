"""Requests made the way a customer makes them (through the chat agent's path, without the tool), and the people
who decide them, for the tests of actions and of the apps above it."""

from __future__ import annotations

from actions.models import ActionRecord
from actions.services import refund_request
from common.actors import Actor
from common.tests.factories import operator_with
from orders.models import Customer, Order
from orders.tests.factories import OrderFactory

DECIDER_PERMISSIONS = ("actions.view_actionrecord", "actions.decide")


def decider(**fields):
    """A staff user who reads requests on the admin and approves or rejects them."""
    return operator_with(*DECIDER_PERMISSIONS, **fields)


def agent_refund(customer: Customer, **args) -> ActionRecord:
    """A customer's refund/cancel request as the chat agent files it (the tool's path, without the tool)."""
    args.setdefault("reason", "")
    return refund_request(customer=customer, actor=Actor.customer_agent(customer), **args).record


def refund_requested(
    order: Order | None = None, *, reason: str = "밑창이 떨어졌어요", category: str = "DEFECT"
) -> ActionRecord:
    """The order's customer asks the agent for a refund, pending approval; by default of an order delivered two
    days ago (well within every refund window)."""
    order = order or OrderFactory(delivered_days_ago=2)
    return agent_refund(order.customer, order_id=order.order_id, reason=reason, reason_category=category)


def defect_refund(reason: str, *, customer_id: str = "C003", order_id: str = "HR20260721001") -> ActionRecord:
    """A demo customer's agent asks for a refund of a defective demo order (승인대기), for tests about the demo
    shop's pages and feeds."""
    customer = Customer.objects.get(pk=customer_id)
    return agent_refund(customer, order_id=order_id, reason=reason, reason_category="DEFECT")

"""Read-only context for the fast draft, fetched beside the pipeline under one overall time budget.

No phone, e-mail or address is selected; action summaries have the addresses they quote replaced, and the
prompt builder masks and fences the whole context (`drafts.prompts`), as the gateway masks it again.

Sources that fail or are late are left out and recorded; the draft never waits past the budget.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from django.db import connection

from actions.models import ActionRecord
from actions.selectors import action_record_summary_masked
from orders.models import Customer, Order
from tickets.models import Ticket

log = logging.getLogger(__name__)

ITEMS_PER_SOURCE = 10
BUDGET_S = 3.0


def _profile(customer_id: str) -> dict:
    c = Customer.objects.only("customer_id", "name", "created_at").get(pk=customer_id)
    return {"customer_id": c.customer_id, "name": c.name}  # no phone, no e-mail


def _orders(customer_id: str) -> list[dict]:
    rows = Order.objects.filter(customer_id=customer_id).select_related("product", "option")[:ITEMS_PER_SOURCE]
    return [
        {
            "order_id": o.order_id,
            "product": o.product.name,
            "option": o.option.label,
            "quantity": o.quantity,
            "amount": int(o.amount),
            "status": o.get_status_display(),
            "ordered_at": str(o.ordered_at),
            "delivered_at": str(o.delivered_at) if o.delivered_at else None,
        }
        for o in rows
    ]


def _actions(customer_id: str) -> list[dict]:
    rows = ActionRecord.objects.filter(customer_id=customer_id).order_by("-id")[:ITEMS_PER_SOURCE]
    return [
        {
            "action_id": r.number,
            "kind": r.get_kind_display(),
            "order_id": r.order_id,
            "status": r.get_status_display(),
            "detail": action_record_summary_masked(r),
        }
        for r in rows
    ]


def _tickets(customer_id: str, exclude_ticket_id: int) -> list[dict]:
    rows = Ticket.objects.filter(customer_id=customer_id).exclude(pk=exclude_ticket_id).order_by("-id")
    return [
        {
            "ticket_id": t.number,
            "category": t.get_category_display(),
            "subject": t.subject,
            "status": t.get_status_display(),
        }
        for t in rows[:ITEMS_PER_SOURCE]
    ]


def _payments(customer_id: str) -> list[dict]:
    """Payments are the orders' amounts; refunds are approved money requests."""
    paid = Order.objects.filter(customer_id=customer_id).order_by("-ordered_at")[:ITEMS_PER_SOURCE]
    refunds = {
        r.order_id: r
        for r in ActionRecord.objects.filter(
            customer_id=customer_id, status=ActionRecord.Status.APPROVED, kind__in=ActionRecord.MONEY_KINDS
        )
    }
    return [
        {
            "order_id": o.order_id,
            "paid": int(o.amount),
            "paid_on": str(o.ordered_at),
            "refunded": int(refunds[o.order_id].refund_amount) if o.order_id in refunds else 0,
        }
        for o in paid
    ]


def _shipping(customer_id: str) -> list[dict]:
    events: list[dict] = []
    for o in (
        Order.objects.filter(customer_id=customer_id)
        .exclude(shipped_at=None)
        .order_by("-shipped_at")[:ITEMS_PER_SOURCE]
    ):
        events.append({"order_id": o.order_id, "event": "출고", "on": str(o.shipped_at)})
        if o.delivered_at:
            events.append({"order_id": o.order_id, "event": "배송완료", "on": str(o.delivered_at)})
    return events[:ITEMS_PER_SOURCE]


def context_sources(customer_id: str, ticket_id: int) -> dict[str, Callable[[], object]]:
    return {
        "profile": lambda: _profile(customer_id),
        "orders": lambda: _orders(customer_id),
        "action_records": lambda: _actions(customer_id),
        "past_tickets": lambda: _tickets(customer_id, ticket_id),
        "payments": lambda: _payments(customer_id),
        "shipping_events": lambda: _shipping(customer_id),
    }


def _fetch_all(
    sources: dict[str, Callable[[], object]],
    results: dict,
    order: list[str],
    measured: Callable[[], AbstractContextManager],
) -> None:
    """One source after another on one connection, each result published as soon as it is there."""
    with measured():
        try:
            for name in order:
                try:
                    results[name] = ("ok", sources[name]())
                except Exception as exc:  # a failing source is left out and recorded, the others still run
                    results[name] = (f"failed:{type(exc).__name__}", None)
        finally:
            connection.close()


def context_prefetch(
    sources: dict[str, Callable[[], object]],
    *,
    budget_s: float = BUDGET_S,
    measured: Callable[[], AbstractContextManager] = nullcontext,
) -> tuple[dict, dict]:
    """(context, report): report says for each source ok / failed (error class) / late, and ms spent.

    The sources are read-only queries of a few milliseconds each, so they share one thread and one database
    connection (opening a PostgreSQL connection costs more than the queries; one per source made the fast
    draft measurably slower). The thread runs beside the caller under one overall budget: whatever has not
    answered when the budget runs out is left out as late, and the draft goes ahead without it. `measured`: what
    the thread's work runs inside (the pipeline's CPU clock: the queries' CPU is that thread's, not the caller's).
    """
    started = time.monotonic()
    results: dict[str, tuple[str, object]] = {}
    order = list(sources)
    worker = threading.Thread(target=_fetch_all, args=(sources, results, order, measured), name="ctx", daemon=True)
    worker.start()
    worker.join(timeout=budget_s)
    context: dict = {}
    report: dict = {}
    for name in order:
        outcome, value = results.get(name, ("late", None))
        report[name] = outcome
        if outcome == "ok":
            context[name] = value
    report["elapsed_ms"] = int((time.monotonic() - started) * 1000)
    missing = [n for n in order if report[n] != "ok"]
    if missing:
        log.warning("drafts.context_partial missing=%s elapsed_ms=%s", ",".join(missing), report["elapsed_ms"])
    return context, report

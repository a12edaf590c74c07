"""The datasets: the big one (public schema of cs_bench) and a small one (schema bench_small), reused across
runs when their counts already match, so a repeated `make bench` stays well under ten minutes."""

from __future__ import annotations

import time

from bench.env import SMALL_SCHEMA, manage, python_module, schema_ensure

BIG = {"customers": 100_000, "orders": 1_000_000, "pending_actions": 100_000}
SMALL = {"customers": 1_000, "orders": 10_000, "pending_actions": 1_000}


def _complete(status: dict, target: dict) -> bool:
    return (
        status["synthetic_customers"] >= target["customers"]
        and status["synthetic_orders"] >= target["orders"]
        and status["pending_actions"] >= target["pending_actions"]
    )


def dataset_ensure(*, schema: str | None, target: dict | None, knowledge: bool, log=print) -> dict:
    """Migrate, seed the demo shop (once), then generate synthetic data unless it is already there."""
    label = schema or "public"
    started = time.monotonic()
    manage("migrate", "--noinput", schema=schema)
    status = python_module("bench.prepare", "status", schema=schema)
    if not status["demo"] or (knowledge and not status["knowledge"]):
        log(f"  [{label}] demo shop{' + knowledge' if knowledge else ''} …")
        python_module("bench.prepare", "seed", *(["--knowledge"] if knowledge else []), schema=schema)
    generated_s = None
    if target and not _complete(status, target):
        if status["synthetic_customers"]:
            raise SystemExit(f"[{label}] partial synthetic data ({status}); rerun with --fresh to regenerate it")
        log(
            f"  [{label}] generate_synthetic --customers {target['customers']} --orders {target['orders']} "
            f"--pending-actions {target['pending_actions']} …"
        )
        t0 = time.monotonic()
        manage(
            "generate_synthetic",
            "--customers", str(target["customers"]),
            "--orders", str(target["orders"]),
            "--pending-actions", str(target["pending_actions"]),
            "--seed", "7",
            "--no-progress",
            schema=schema,
        )  # fmt: skip
        generated_s = round(time.monotonic() - t0, 1)
        status = python_module("bench.prepare", "status", schema=schema)
    return {
        "schema": label,
        **status,
        "generated_now": generated_s is not None,
        "generate_seconds": generated_s,
        "prepare_seconds": round(time.monotonic() - started, 1),
    }


def small_dataset_ensure(*, fresh: bool, log=print) -> dict:
    schema_ensure(SMALL_SCHEMA, fresh=fresh)
    return dataset_ensure(schema=SMALL_SCHEMA, target=SMALL, knowledge=False, log=log)


def big_dataset_ensure(*, log=print) -> dict:
    return dataset_ensure(schema=None, target=BIG, knowledge=True, log=log)


def customer_order() -> tuple[object, str]:
    """A demo customer who can sign in, and their first order that has not shipped yet (its address may change)."""
    from orders.models import Order

    order = (
        Order.objects.filter(customer__user__isnull=False, status__in=[Order.Status.PAID, Order.Status.PREPARING])
        .exclude(customer__customer_id__regex=r"^S[0-9]{8}$")
        .select_related("customer__user")
        .order_by("order_id")
        .first()
    )
    if order is None:
        raise RuntimeError("no unshipped demo order")
    return order.customer.user, order.order_id

"""Shop connection benchmark: import of N orders (orders/s, through `shop_import_batch`, the path of
`manage.py import_shop`), and event delivery after commit (p50/p95 latency, throughput) to a local receiver —
in-process (the embedded default) and, with `--broker`, through Redis to a real Celery worker.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_bench python -m bench.shop --orders 100000 --events 500 \\
        --compare 2000 --broker redis://127.0.0.1:6379/14

`--compare K` also imports K orders line by line (`shop_import_line`, the path before batching) and K through
the batch, in the same run, for the ratio. `--broker URL` starts `celery -A cs_project worker` on that Redis
(a queue of its own, this process's database), points this process's Celery at it (eager off), and measures
twice: how fast the worker drains a backlog published before it started (its capacity), then the same serial
events as in-process (latency, and events/s bounded by the committing loop). Everything the run created is
deleted at the end unless `--keep`. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime

CUSTOMERS_PER_ORDER = 0.1


def _lines(tag: str, prefix: str, phase: int, orders: int) -> tuple[list[str], list[str]]:
    """A shop file: its customers (one per ten orders), one product, then the orders. Order ids have 15 digits
    (never the 16 of `generate_synthetic`'s, which bench/prepare.py counts)."""
    customers = max(1, int(orders * CUSTOMERS_PER_ORDER))
    customer_ids = [f"B{tag[:5]}{phase}{i}" for i in range(customers)]
    product_id = f"BP{tag}{phase}"
    lines = [json.dumps({"type": "customer", "customer_id": c, "name": "벤치", "version": 1}) for c in customer_ids]
    lines.append(
        json.dumps(
            {
                "type": "product",
                "product_id": product_id,
                "name": "벤치 상품",
                "price": "10000",
                "options": [{"option_id": "O1", "name": "기본", "stock": 10}],
                "version": 1,
            }
        )
    )
    order_ids = [f"HR{prefix}{phase}{i:08d}" for i in range(orders)]
    for i, order_id in enumerate(order_ids):
        lines.append(
            json.dumps(
                {
                    "type": "order",
                    "order_id": order_id,
                    "customer_id": customer_ids[i % customers],
                    "status": "PAID",
                    "ordered_at": "2026-07-20",
                    "shipping_address": "서울시 중구 세종대로 110",
                    "items": [{"product_id": product_id, "option_id": "O1", "quantity": 1, "unit_price": "10000"}],
                    "amount": "10000",
                    "version": 1,
                }
            )
        )
    return lines, order_ids


def _import(integration, lines: list[str], orders: int, *, by_line: bool) -> dict:
    from common.actors import Actor
    from common.errors import DomainError
    from integration.services.imports import IMPORT_CHUNK_SIZE, shop_import_batch, shop_import_line

    actor = Actor.system("bench")
    errors = 0
    started = time.perf_counter()
    if by_line:
        for line in lines:
            try:
                shop_import_line(integration=integration, line=line, actor=actor)
            except DomainError:
                errors += 1
    else:
        results = shop_import_batch(integration=integration, lines=lines, actor=actor)
        errors = sum(1 for r in results if isinstance(r, DomainError))
    seconds = time.perf_counter() - started
    return {
        "path": "shop_import_line" if by_line else f"shop_import_batch (chunks of {IMPORT_CHUNK_SIZE})",
        "orders": orders,
        "lines": len(lines),
        "seconds": round(seconds, 2),
        "orders_per_s": round(orders / seconds, 1) if seconds else None,
        "errors": errors,
    }


class _Stopwatch:
    """Wraps the receiver: the time of each event's first verified 200, keyed by its `subject`."""

    def __init__(self, simulator) -> None:
        self.received: dict[str, float] = {}
        original = simulator._receive

        def timed(body, signature, header_id):
            status = original(body, signature, header_id)
            if status == 200:
                self.received.setdefault(json.loads(body)["data"]["subject"], time.perf_counter())
            return status

        simulator._receive = timed


def _emit(*, label: str, tag: str, order_ids: list[str], events: int) -> tuple[dict[str, float], float]:
    """`events` shop events, one per transaction. Returns each one's time just before its commit (delivery
    starts on_commit), and how long emitting took."""
    from django.db import transaction

    from common import events as shop_events

    committed: dict[str, float] = {}
    started = time.perf_counter()
    for i in range(events):
        subject = f"{label}-{i}"
        with transaction.atomic():
            shop_events.shop_event_emit(
                type=shop_events.TICKET_CREATED,
                key=f"{tag}-{subject}",
                data={"ticket_id": subject, "order_id": order_ids[i % len(order_ids)], "subject": subject},
            )
            committed[subject] = time.perf_counter()
    return committed, time.perf_counter() - started


def _received(stopwatch: _Stopwatch, committed: dict[str, float]) -> dict[str, float]:
    deadline = time.monotonic() + 120
    while any(s not in stopwatch.received for s in committed) and time.monotonic() < deadline:
        time.sleep(0.02)
    return {s: stopwatch.received[s] for s in committed if s in stopwatch.received}


def _deliver(stopwatch: _Stopwatch, *, label: str, tag: str, order_ids: list[str], events: int) -> dict:
    """Latency from just before each commit to the receiver's 200; events/s from the first commit to the
    last 200 (so bounded by the committing loop, which routes each event in this process)."""
    committed, emitted_s = _emit(label=label, tag=tag, order_ids=order_ids, events=events)
    received = _received(stopwatch, committed)
    latencies = sorted((received[s] - committed[s]) * 1000 for s in received)
    span = (max(received.values()) - min(committed.values())) if received else 0
    return {
        "events": events,
        "delivered": len(received),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(statistics.quantiles(latencies, n=20)[18], 1) if len(latencies) >= 2 else None,
        "events_per_s": round(len(received) / span, 1) if span else None,
        "emit_s": round(emitted_s, 2),
    }


def _drain(stopwatch: _Stopwatch, committed: dict[str, float]) -> dict:
    """A backlog already on the broker when the worker starts: how fast the worker delivers it (from the
    first 200 to the last), i.e. its capacity, apart from the committing loop."""
    received = _received(stopwatch, committed)
    span = (max(received.values()) - min(received.values())) if len(received) > 1 else 0
    return {
        "events": len(committed),
        "delivered": len(received),
        "drain_s": round(span, 2),
        "events_per_s": round((len(received) - 1) / span, 1) if span else None,
    }


@contextmanager
def _publishing_to(broker: str):
    """This process's Celery on `broker`, eager off, a queue of its own (no other worker takes its tasks)."""
    from django.test.utils import override_settings

    from cs_project.celery import app, broker_pools_reset

    queue = f"bench-shop-{uuid.uuid4().hex[:8]}"
    with override_settings(
        REDIS_URL=broker, CELERY_BROKER_URL=broker, CELERY_TASK_ALWAYS_EAGER=False, CELERY_TASK_DEFAULT_QUEUE=queue
    ):
        broker_pools_reset()
        assert app.conf.broker_url == broker and app.conf.task_always_eager is False
        try:
            yield queue
        finally:
            broker_pools_reset()


def _worker_start(broker: str, queue: str, *, database_url: str | None, concurrency: int):
    """`celery -A cs_project worker` on `broker` and `queue`, on this process's database."""
    from bench import env as benv

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": benv.SETTINGS,
        "REDIS_URL": broker,
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    if database_url:
        env["DATABASE_URL"] = database_url
    return benv.celery_worker_spawn(name="shop", env=env, pool="threads", concurrency=concurrency, queue=queue)


def _cleanup(integration, tag: str) -> float:
    """Delete what the run created: its orders, customers, products, events, outbox rows, the integration."""
    from django.db.models import Q

    from common.models import OutboxMessage
    from integration.models import ShopEvent, SyncRecord
    from integration.services.webhooks import WEBHOOK_TOPIC
    from orders.models import Customer, Order, Product

    started = time.perf_counter()
    owned = SyncRecord.objects.filter(integration=integration)
    event_ids = ShopEvent.objects.filter(integration=integration).values_list("event_id", flat=True)
    event_keys = [f"{WEBHOOK_TOPIC}:{event_id}" for event_id in event_ids]
    OutboxMessage.objects.filter(Q(dedupe_key__in=event_keys) | Q(dedupe_key__contains=f":{tag}-")).delete()
    Order.objects.filter(pk__in=owned.filter(kind="order").values("external_id")).delete()
    Customer.objects.filter(pk__in=owned.filter(kind="customer").values("external_id")).delete()
    Product.objects.filter(pk__in=owned.filter(kind="product").values("external_id")).delete()
    integration.delete()  # its sync records and events
    return round(time.perf_counter() - started, 1)


def run(
    *,
    orders: int,
    events: int,
    compare: int = 0,
    broker: str | None = None,
    worker_database_url: str | None = None,
    worker_concurrency: int = 4,
    keep: bool = False,
) -> dict:
    from django.db import connection
    from django.test.utils import override_settings

    from common.actors import Actor
    from integration.services.integrations import integration_create
    from integration.simulator import ShopSimulator

    load_before = os.getloadavg()
    simulator = ShopSimulator(signing_secret="").start()
    tag = uuid.uuid4().hex[:8]
    issued = integration_create(name=f"bench-{tag}", webhook_url=simulator.url, actor=Actor.system("bench"))
    simulator.signing_secret = issued.signing_secret
    integration = issued.integration
    prefix = str(int(time.time()) % 1_000_000).zfill(6)
    result: dict = {
        "date": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
        "database": connection.vendor,
        "cpu_count": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load_before],
    }
    try:
        if compare:
            line_lines, _ = _lines(tag, prefix, 1, compare)
            batch_lines, _ = _lines(tag, prefix, 2, compare)
            by_line = _import(integration, line_lines, compare, by_line=True)
            batched = _import(integration, batch_lines, compare, by_line=False)
            result["import_compare"] = {
                "line": by_line,
                "batch": batched,
                "speedup": round(batched["orders_per_s"] / by_line["orders_per_s"], 1),
            }
        lines, order_ids = _lines(tag, prefix, 0, orders)
        result["import"] = _import(integration, lines, orders, by_line=False)
        del lines

        stopwatch = _Stopwatch(simulator)
        delivery = {}
        with override_settings(CELERY_TASK_ALWAYS_EAGER=True):  # the embedded default, whatever REDIS_URL says
            delivery["in_process"] = _deliver(stopwatch, label="inproc", tag=tag, order_ids=order_ids, events=events)
        if broker:
            with _publishing_to(broker) as queue:
                # First a backlog, published while no worker listens; then the worker starts and drains it.
                backlog, _ = _emit(label="backlog", tag=tag, order_ids=order_ids, events=events)
                early = sum(1 for s in backlog if s in stopwatch.received)  # 0 unless something else delivered
                worker = _worker_start(broker, queue, database_url=worker_database_url, concurrency=worker_concurrency)
                try:
                    delivery["broker_backlog"] = {**_drain(stopwatch, backlog), "delivered_before_worker": early}
                    delivery["broker"] = {
                        **_deliver(stopwatch, label="broker", tag=tag, order_ids=order_ids, events=events),
                        "worker": f"celery --pool=threads --concurrency={worker_concurrency}",
                    }
                finally:
                    worker.stop()
        result["delivery"] = delivery
    finally:
        simulator.stop()
        result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
        if not keep:
            result["cleanup_s"] = _cleanup(integration, tag)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.shop", description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=1000)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--compare", type=int, default=0, help="also K orders line by line and K batched")
    parser.add_argument("--broker", default=None, help="e.g. redis://127.0.0.1:6379/14: also through a worker")
    parser.add_argument("--worker-concurrency", type=int, default=4)
    parser.add_argument("--keep", action="store_true", help="keep the imported rows")
    args = parser.parse_args()
    # DEBUG off (bench/settings.py): the figures do not include DEBUG's query log.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # an info line per event would be part of what is measured
    from bench import env as benv

    if os.environ.get("DATABASE_URL") == benv.DATABASE_URL:
        benv.database_ensure(fresh=False)  # cs_bench, created if missing (never dropped here)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    result = run(
        orders=args.orders,
        events=args.events,
        compare=args.compare,
        broker=args.broker,
        worker_database_url=os.environ.get("DATABASE_URL"),
        worker_concurrency=args.worker_concurrency,
        keep=args.keep,
    )
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

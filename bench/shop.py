"""Shop connection benchmark: import of N orders (orders/s, through the same line-by-line path as
`manage.py import_shop`) and event delivery after commit (p50/p95 latency, throughput) to a local receiver.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_bench python -m bench.shop --orders 100000 --events 500

With REDIS_URL set, delivery goes through the broker to whatever Celery worker serves that queue (start one);
without it, delivery runs in-process after each commit (the embedded default). Prints one JSON line."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid


def run(*, orders: int, events: int) -> dict:
    from django.db import transaction

    from common import events as shop_events
    from common.actors import Actor
    from integration.services import integration_create, shop_import_line
    from integration.simulator import ShopSimulator

    actor = Actor.system("bench")
    simulator = ShopSimulator(signing_secret="").start()
    tag = uuid.uuid4().hex[:8]
    issued = integration_create(name=f"bench-{tag}", webhook_url=simulator.url, actor=actor)
    simulator.signing_secret = issued.signing_secret
    integration = issued.integration
    customers = max(1, orders // 10)
    prefix = str(int(time.time()) % 10_000_000).zfill(7)
    lines = [
        json.dumps({"type": "customer", "customer_id": f"B{tag[:5]}{i}", "name": "벤치", "version": 1})
        for i in range(customers)
    ]
    lines.append(
        json.dumps(
            {
                "type": "product",
                "product_id": f"BP{tag}",
                "name": "벤치 상품",
                "price": "10000",
                "options": [{"option_id": "O1", "name": "기본", "stock": 10}],
                "version": 1,
            }
        )
    )
    order_ids = [f"HR{prefix}{i:08d}" for i in range(orders)]
    for i, order_id in enumerate(order_ids):
        lines.append(
            json.dumps(
                {
                    "type": "order",
                    "order_id": order_id,
                    "customer_id": f"B{tag[:5]}{i % customers}",
                    "status": "PAID",
                    "ordered_at": "2026-07-20",
                    "shipping_address": "서울시 중구 세종대로 110",
                    "items": [{"product_id": f"BP{tag}", "option_id": "O1", "quantity": 1, "unit_price": "10000"}],
                    "amount": "10000",
                    "version": 1,
                }
            )
        )
    started = time.perf_counter()
    for line in lines:
        shop_import_line(integration=integration, line=line, actor=actor)
    import_s = time.perf_counter() - started

    committed: dict[str, float] = {}
    received: dict[str, float] = {}
    original = simulator._receive

    def timed(body, signature, header_id):
        status = original(body, signature, header_id)
        if status == 200:
            seq = json.loads(body)["data"]["subject"]
            received.setdefault(seq, time.perf_counter())
        return status

    simulator._receive = timed
    for i in range(events):
        seq = f"bench-{i}"
        with transaction.atomic():
            shop_events.shop_event_emit(
                type=shop_events.TICKET_CREATED,
                key=f"{tag}-{i}",
                data={"ticket_id": seq, "order_id": order_ids[i % len(order_ids)], "subject": seq},
            )
            committed[seq] = time.perf_counter()  # just before the commit; delivery starts on_commit
    deadline = time.monotonic() + 120
    while len(received) < events and time.monotonic() < deadline:
        time.sleep(0.05)
    simulator.stop()
    latencies = sorted((received[s] - committed[s]) * 1000 for s in received)
    span = (max(received.values()) - min(committed.values())) if received else 0
    quantiles = statistics.quantiles(latencies, n=20) if len(latencies) >= 2 else latencies * 19
    return {
        "orders": orders,
        "import_s": round(import_s, 2),
        "orders_per_s": round(orders / import_s, 1) if import_s else None,
        "events": events,
        "delivered": len(received),
        "delivery_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "delivery_p95_ms": round(quantiles[18], 1) if latencies else None,
        "delivery_per_s": round(len(received) / span, 1) if span else None,
        "mode": "broker" if os.environ.get("REDIS_URL") else "in-process",
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=1000)
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.local")
    import django

    django.setup()
    print(json.dumps(run(orders=args.orders, events=args.events)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

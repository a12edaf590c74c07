"""Part 3 probe, run in its own process on one schema of cs_bench (see bench/settings.py):
tool decisions, `GET /api/requests/` and the approval queue page, each timed and query-counted.

    python -m bench.scale_probe --customers 60 --repeat 30    # prints one JSON line

Tool decisions run inside a transaction that is rolled back, so the dataset is the same on every run and
every run makes the same decisions; the commit itself is timed separately (`commit_ms`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

import django

REQUESTS_USERNAME = "bench_requests"
REQUESTS_ACTION_RECORDS = 50
REQUESTS_TICKETS = 10
QUEUE_URL = "/admin/actions/actionrecord/?status__exact=PENDING"
TX_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT", "ROLLBACK")


def _queries(ctx) -> int:
    """Statements sent, without transaction control (the rollback wrapper adds savepoints)."""
    return sum(1 for q in ctx.captured_queries if not q["sql"].lstrip().upper().startswith(TX_CONTROL))


def _summary(values: list[float]) -> dict:
    from bench.report import summary

    return summary(values)


def requests_customer_ensure():
    """The first synthetic customer, with a login, 50 action records and 10 tickets (idempotent)."""
    from django.contrib.auth import get_user_model

    from actions.models import ActionRecord
    from common.clock import today
    from orders.models import Customer, Order
    from tickets.models import Ticket

    customer = (
        Customer.objects.filter(customer_id__regex=r"^S[0-9]{8}$", orders__isnull=False).order_by("customer_id").first()
    )
    user, _ = get_user_model().objects.get_or_create(username=REQUESTS_USERNAME)
    if customer.user_id != user.pk:
        Customer.objects.filter(user=user).update(user=None)
        customer.user = user
        customer.save(update_fields=["user"])
    orders = list(Order.objects.filter(customer=customer).order_by("order_id"))
    missing = REQUESTS_ACTION_RECORDS - ActionRecord.objects.filter(customer=customer).count()
    if missing > 0:
        ActionRecord.objects.bulk_create(
            ActionRecord(
                customer=customer,
                order=orders[i % len(orders)],
                kind=ActionRecord.Kind.ADDRESS_CHANGE,
                status=ActionRecord.Status.DONE,
                requested_on=today(),
                detail={"new_address": f"서울특별시 중구 세종대로 110, {i}층", "old_address": ""},
                summary=f"배송지를 '서울특별시 중구 세종대로 110, {i}층'(으)로 변경",
            )
            for i in range(missing)
        )
    missing = REQUESTS_TICKETS - Ticket.objects.filter(customer=customer).count()
    if missing > 0:  # rows only: ticket_create would enqueue a draft for each
        Ticket.objects.bulk_create(
            Ticket(customer=customer, category=Ticket.Category.DELIVERY, subject=f"배송 문의 {i}",
                   source=Ticket.Source.API)
            for i in range(missing)
        )  # fmt: skip
    return customer, user


def tool_cases(customer, rng: random.Random) -> list[tuple[str, dict]]:
    from orders.models import Order, ProductOption

    orders = list(Order.objects.filter(customer=customer).select_related("option").order_by("order_id"))
    cases: list[tuple[str, dict]] = [("get_my_orders", {}), ("get_my_requests", {})]
    unshipped = [o for o in orders if o.status in (Order.Status.PAID, Order.Status.PREPARING)]
    delivered = [o for o in orders if o.status == Order.Status.DELIVERED]
    target = (unshipped or orders)[0] if orders else None
    if target:
        cases.append(("change_shipping_address",
                      {"order_id": target.order_id, "new_address": "서울특별시 중구 세종대로 110, 3층"}))  # fmt: skip
    if delivered:
        order = rng.choice(delivered)
        other = (
            ProductOption.objects.filter(product_id=order.product_id).exclude(pk=order.option_id).order_by("id").first()
        )
        cases.append(("request_exchange", {"order_id": order.order_id, "new_option": (other or order.option).label,
                                           "reason_category": "상품하자", "reason": "불량"}))  # fmt: skip
        cases.append(
            (
                "request_refund",
                {"order_id": rng.choice(delivered).order_id, "reason_category": "상품하자", "reason": "흠집"},
            )
        )
    cases.append(("create_ticket", {"category": "배송", "summary": "배송이 늦어요"}))
    return cases


def measure_tools(customers: int, seed: int = 1) -> dict:
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from chat.tools import make_action_tools
    from orders.models import Customer

    rng = random.Random(seed)
    count = Customer.objects.filter(customer_id__regex=r"^S[0-9]{8}$").count()
    ids = sorted({f"S{rng.randrange(1, count + 1):08d}" for _ in range(customers)})
    times: dict[str, list[float]] = {}
    queries: dict[str, int] = {}
    ok: dict[str, int] = {}
    for round_ in (0, 1):  # round 0 warms caches and is not recorded
        for cid in ids if round_ else ids[:5]:
            customer = Customer.objects.select_related("user").get(pk=cid)
            for name, args in tool_cases(customer, rng):
                registry = make_action_tools(customer)
                with CaptureQueriesContext(connection) as ctx:
                    started = time.perf_counter()
                    with transaction.atomic():
                        result = registry.call(name, args)
                        transaction.set_rollback(True)
                    elapsed = (time.perf_counter() - started) * 1000
                if round_:
                    times.setdefault(name, []).append(elapsed)
                    queries[name] = max(queries.get(name, 0), _queries(ctx))
                    ok[name] = ok.get(name, 0) + bool(result.get("ok"))
    out = {}
    for name, values in times.items():
        out[name] = {**_summary(values), "queries": queries[name], "ok": ok[name]}
    return out


def measure_commit(repeat: int) -> dict:
    """What the rollback leaves out: one committed single-row write (WAL flush), timed alone."""
    from django.db import transaction
    from django.db.models import F

    from orders.models import Order

    pk = Order.objects.order_by("order_id").values_list("pk", flat=True).first()
    values = []
    for _ in range(repeat + 3):
        started = time.perf_counter()
        with transaction.atomic():
            Order.objects.filter(pk=pk).update(shipping_address=F("shipping_address"))
        values.append((time.perf_counter() - started) * 1000)
    return _summary(values[3:])


def _get_timed(client, url: str, repeat: int, warmup: int = 3) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    values, count, status, size = [], 0, None, 0
    for i in range(warmup + repeat):
        with CaptureQueriesContext(connection) as ctx:
            started = time.perf_counter()
            response = client.get(url)
            elapsed = (time.perf_counter() - started) * 1000
        status, size = response.status_code, len(response.content)
        if status != 200:
            raise RuntimeError(f"GET {url}: HTTP {status}")
        if i >= warmup:
            values.append(elapsed)
            count = max(count, _queries(ctx))
    return {**_summary(values), "queries": count, "status": status, "bytes": size}


def measure_requests(repeat: int) -> dict:
    from rest_framework.test import APIClient

    from accounts.services import token_issue
    from actions.models import ActionRecord
    from tickets.models import Ticket

    customer, user = requests_customer_ensure()
    _, key = token_issue(user=user, actor=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    out = _get_timed(client, "/api/requests/", repeat)
    out["records"] = ActionRecord.objects.filter(customer=customer).count()
    out["tickets"] = Ticket.objects.filter(customer=customer).count()
    return out


def measure_queue(repeat: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from actions.models import ActionRecord

    client = Client()
    client.force_login(get_user_model().objects.get(username="operator"))
    out = _get_timed(client, QUEUE_URL, repeat)
    out["pending"] = ActionRecord.objects.filter(status=ActionRecord.Status.PENDING).count()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    django.setup()
    result = {
        "tools": measure_tools(args.customers),
        "commit_ms": measure_commit(args.repeat),
        "requests_api": measure_requests(args.repeat),
        "admin_queue": measure_queue(max(10, args.repeat // 2)),
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()

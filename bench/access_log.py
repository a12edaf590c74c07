"""What the access log costs a page view: the same admin and staff-API views with logging and without.

    python -m bench.access_log              # 300 views per page and mode, scratch SQLite (or DATABASE_URL's engine)
    python -m bench.access_log --views 30   # quicker

Without logging = `privacy.middleware.AccessLogMiddleware` removed and `access_note` a no-op, i.e. the project as it
was before the access log. The modes alternate in blocks of 10 views, after a warm-up, so drift hits both alike.
Per view it measures this process's CPU time (utime + stime: steadier than wall time on a shared machine) and the
wall time, both including the response's close(), where the record is written (the WSGI server calls close() after
the last byte, so the operator does not wait for that part; it is reported separately as `write after response`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time


def _setup(db_path: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.test")
    os.environ["CS_TEST_SQLITE"] = db_path
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    from fixtures.demo import demo_seed

    demo_seed(password="demo1234", knowledge=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=300, help="views per page and mode")
    args = parser.parse_args(argv)
    scratch = tempfile.mkdtemp(prefix="bench-access-")
    _setup(os.path.join(scratch, "bench.sqlite3"))

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings
    from django.urls import reverse

    import privacy.access
    import privacy.access as access_module
    import privacy.admin
    from orders.models import Order
    from privacy.models import AccessRecord
    from tickets.services import ticket_create

    operator = get_user_model().objects.get(username="operator")
    c003 = operator.__class__.objects.get(username__iexact="c003").customer
    ticket = ticket_create(
        customer=c003, category="배송", subject="언제 와요", body="언제 와요?", source="API", author=c003.user
    )
    order = Order.objects.filter(customer=c003).first()
    client = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="10.0.0.9")
    client.force_login(operator)
    from rest_framework.test import APIClient

    api = APIClient(HTTP_HOST="127.0.0.1", REMOTE_ADDR="10.0.0.9")
    api.force_authenticate(operator)
    pages = {
        "admin customer page": (client, reverse("admin:orders_customer_change", args=["C003"])),
        "admin order page": (client, reverse("admin:orders_order_change", args=[order.pk])),
        "admin ticket page": (client, reverse("admin:tickets_ticket_change", args=[ticket.pk])),
        "admin ticket list": (client, reverse("admin:tickets_ticket_changelist")),
        "staff API customer": (api, "/api/ops/customers/C003/"),
        "staff API ticket": (api, f"/api/ops/tickets/{ticket.number}/"),
    }
    without_middleware = [m for m in settings.MIDDLEWARE if m != "privacy.middleware.AccessLogMiddleware"]
    real_note = access_module.access_note
    import privacy.middleware

    real_flush = privacy.middleware.access_flush
    flush_time = [0.0]

    def timed_flush(records):
        started = time.perf_counter()
        real_flush(records)
        flush_time[0] += time.perf_counter() - started

    privacy.middleware.access_flush = timed_flush

    def view(client, url) -> tuple[float, float, float]:
        """(cpu, wall, wall before close): the test client closes the response itself, as a server does after
        sending it; the time the close hook spent writing is taken out for the part the operator waits for."""
        flush_time[0] = 0.0
        cpu, wall = time.process_time(), time.perf_counter()
        response = client.get(url)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        assert response.status_code == 200, (url, response.status_code)
        return cpu, wall, wall - flush_time[0]

    def set_logging(on: bool):
        note = real_note if on else (lambda *a, **k: None)
        for module in (privacy.access, privacy.admin):
            module.access_note = note
        # The apps imported the function by name: patch where it is looked up.
        import drafts.apis
        import orders.apis
        import tickets.apis

        for module in (orders.apis, tickets.apis, drafts.apis):
            module.access_note = note
        return override_settings(MIDDLEWARE=settings.MIDDLEWARE if on else without_middleware)

    results = {}
    block = 10
    for name, (who, url) in pages.items():
        samples = {True: [], False: []}
        for on in (True, False):  # warm-up
            with set_logging(on):
                for _ in range(5):
                    view(who, url)
        for start in range(0, args.views, block):
            for on in (True, False) if (start // block) % 2 == 0 else (False, True):
                with set_logging(on):
                    for _ in range(min(block, args.views - start)):
                        samples[on].append(view(who, url))
        with set_logging(True), CaptureQueriesContext(connection) as logged:
            view(who, url)
        with set_logging(False), CaptureQueriesContext(connection) as plain:
            view(who, url)
        results[name] = (samples, len(logged.captured_queries), len(plain.captured_queries))
    set_logging(True)

    # The write itself, as the close hook does it: one bulk INSERT of one record.
    record = AccessRecord(
        at=ticket.created_at, operator="x", surface="ADMIN", action="VIEW", object_type="TICKET", object_id="1"
    )
    writes = []
    for _ in range(args.views):
        started = time.perf_counter()
        privacy.access.access_flush(
            [
                AccessRecord(
                    **{
                        f.attname: getattr(record, f.attname)
                        for f in AccessRecord._meta.concrete_fields
                        if f.attname != "id"
                    }
                )
            ]
        )
        writes.append(time.perf_counter() - started)

    engine = connection.vendor
    print(f"access log cost per view ({engine}, {args.views} views per page and mode, median)")
    print(
        f"{'page':<22} {'cpu ms on':>9} {'cpu ms off':>10} {'cpu ratio':>9} {'wall ms on':>10} {'wall ms off':>11} "
        f"{'wall ratio':>10} {'before close':>12} {'ratio':>6} {'queries':>8}"
    )
    for name, (samples, q_on, q_off) in results.items():
        cpu_on = statistics.median(c for c, _, _ in samples[True]) * 1000
        cpu_off = statistics.median(c for c, _, _ in samples[False]) * 1000
        wall_on = statistics.median(w for _, w, _ in samples[True]) * 1000
        wall_off = statistics.median(w for _, w, _ in samples[False]) * 1000
        before = statistics.median(b for _, _, b in samples[True]) * 1000
        print(
            f"{name:<22} {cpu_on:>9.2f} {cpu_off:>10.2f} {cpu_on / cpu_off:>9.3f} {wall_on:>10.2f} {wall_off:>11.2f} "
            f"{wall_on / wall_off:>10.3f} {before:>12.2f} {before / wall_off:>6.3f} {q_off:>4}→{q_on:<3}"
        )
    print(f"write after response (one record, one INSERT): median {statistics.median(writes) * 1000:.2f} ms")
    records = AccessRecord.objects.filter(operator="operator").count()
    expected = sum(len(samples[True]) + 5 + 1 for samples, _, _ in results.values())
    print(f"records written by the logged views: {records} (expected {expected}: one per view)")
    connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)
    return 0 if records == expected else 1


if __name__ == "__main__":
    sys.exit(main())

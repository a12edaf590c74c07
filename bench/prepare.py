"""Dataset helpers run in their own process (so the schema is chosen by environment, see bench/settings.py).

python -m bench.prepare status             # JSON counts of the current schema
python -m bench.prepare seed [--knowledge]  # demo shop + logins (+ tags, FAQ, documents, service events)
"""

from __future__ import annotations

import argparse
import json
import os

import django

SYNTHETIC_CUSTOMER_REGEX = r"^S[0-9]{8}$"
SYNTHETIC_ORDER_REGEX = r"^HR[0-9]{16}$"


def status() -> dict:
    from actions.models import ActionRecord
    from knowledge.selectors import index_status
    from orders.models import Customer, Order

    return {
        "demo": Customer.objects.filter(pk="C003", user__isnull=False).exists(),
        "knowledge": bool(index_status().get("built")),
        "synthetic_customers": Customer.objects.filter(customer_id__regex=SYNTHETIC_CUSTOMER_REGEX).count(),
        "synthetic_orders": Order.objects.filter(order_id__regex=SYNTHETIC_ORDER_REGEX).count(),
        "pending_actions": ActionRecord.objects.filter(status=ActionRecord.Status.PENDING).count(),
        "action_records": ActionRecord.objects.count(),
    }


def seed(*, knowledge: bool) -> dict:
    from fixtures.demo import demo_seed
    from orders.models import Customer

    # demo_seed gives a login to every customer without one: never run it over synthetic customers.
    if Customer.objects.filter(customer_id__regex=SYNTHETIC_CUSTOMER_REGEX).exists():
        raise SystemExit("synthetic customers present before the demo seed; rerun the benchmark with --fresh")
    counts, _accounts = demo_seed(knowledge=knowledge, inquiries=False)
    return {k: int(v) for k, v in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["status", "seed"])
    parser.add_argument("--knowledge", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    django.setup()
    result = status() if args.command == "status" else seed(knowledge=args.knowledge)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

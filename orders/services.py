"""Demo data: load the shop fixture, create demo logins, reset to the fixture's state."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction

from orders.models import Customer, Order, Product, ProductOption

log = logging.getLogger(__name__)

OPERATOR_USERNAME = "operator"
ADMIN_USERNAME = "admin"
OPERATOR_APPS = (
    "orders",
    "actions",
    "tickets",
    "chat",
    "llm",
    "drafts",
    "knowledge",
    "diagnostics",
    "metrics",
    "evals",
)


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def shop_fixture_read(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


@transaction.atomic
def shop_fixture_load(*, data: dict, restore: bool) -> dict[str, int]:
    """Create what is missing. With `restore`, also put orders and stock back to the fixture's values."""
    counts = {"customers": 0, "products": 0, "options": 0, "orders": 0}
    for row in data["customers"]:
        _, created = Customer.objects.get_or_create(
            customer_id=row["customer_id"], defaults={k: row[k] for k in ("name", "phone", "email")}
        )
        counts["customers"] += created
    options: dict[tuple[str, str], ProductOption] = {}
    for row in data["products"]:
        product, created = Product.objects.get_or_create(
            product_id=row["product_id"], defaults={"name": row["name"], "price": Decimal(row["price"])}
        )
        counts["products"] += created
        for opt in row["options"]:
            option, created = ProductOption.objects.get_or_create(
                product=product, label=opt["label"], defaults={"stock": opt["stock"]}
            )
            if restore and option.stock != opt["stock"]:
                option.stock = opt["stock"]
                option.save(update_fields=["stock"])
            counts["options"] += created
            options[(product.pk, opt["label"])] = option
    for row in data["orders"]:
        values = {
            "customer_id": row["customer_id"],
            "product_id": row["product_id"],
            "option": options[(row["product_id"], row["option"])],
            "quantity": row["quantity"],
            "amount": Decimal(row["amount"]),
            "status": row["status"],
            "shipping_address": row["shipping_address"],
            "ordered_at": _date(row["ordered_at"]),
            "shipped_at": _date(row["shipped_at"]),
            "delivered_at": _date(row["delivered_at"]),
        }
        if restore:
            _, created = Order.objects.update_or_create(order_id=row["order_id"], defaults=values)
        else:
            _, created = Order.objects.get_or_create(order_id=row["order_id"], defaults=values)
        counts["orders"] += created
    return counts


@dataclass
class DemoAccounts:
    customers: list[tuple[str, str]] = field(default_factory=list)  # (username, customer_id)
    operator: str = OPERATOR_USERNAME
    admin: str = ADMIN_USERNAME


@transaction.atomic
def demo_accounts_ensure(*, password: str) -> DemoAccounts:
    """A login per demo customer, an `operator` with the decide permission, an `admin` superuser."""
    User = get_user_model()
    accounts = DemoAccounts()
    for customer in Customer.objects.filter(user__isnull=True):
        username = customer.customer_id.lower()
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(password)
            user.save()
        customer.user = user
        customer.save(update_fields=["user"])
    accounts.customers = [
        (c.user.username, c.customer_id) for c in Customer.objects.select_related("user").filter(user__isnull=False)
    ]
    operator, created = User.objects.get_or_create(username=OPERATOR_USERNAME, defaults={"is_staff": True})
    if created:
        operator.set_password(password)
        operator.save()
    perms = Permission.objects.filter(content_type__app_label__in=OPERATOR_APPS).filter(
        codename__regex=r"^(view_|decide$|review$|change_ticket|add_ticketmessage|change_tag|add_draftrating)"
    )
    operator.user_permissions.add(*perms)
    admin, created = User.objects.get_or_create(
        username=ADMIN_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        admin.set_password(password)
        admin.save()
    return accounts

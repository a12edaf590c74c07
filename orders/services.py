"""Every change to an order (status, shipping address, stock held for it), each with its OrderEvent in the
same transaction; and the demo data: load the shop fixture, create demo logins, reset to the fixture's state.

Whether a change is allowed (windows, reasons) is the caller's policy (`actions.policy`); these functions
apply it under a row lock and refuse only what can never be right (changing a finished order)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction
from django.db.models import F, QuerySet

from common.actors import Actor
from common.errors import InvalidState
from orders.models import Customer, Order, OrderEvent, Product, ProductOption

log = logging.getLogger(__name__)

OPERATOR_USERNAME = "operator"
SUPERVISOR_USERNAME = "supervisor"
ADMIN_USERNAME = "admin"
# The operator's permissions (codenames across OPERATOR_APPS): every view, the decisions, own replies, and a few
# changes (ticket status, tags, operator messages). The supervisor also assigns tickets to others.
OPERATOR_PERMISSIONS = (
    r"^(view_|decide$|review$|reply_ticket$|change_ticket|add_ticketmessage|change_tag|add_draftrating)"
)
SUPERVISOR_PERMISSIONS = r"^assign_ticket$"
# How the desk names them to each other ("김상담님이 14:02에 먼저 답변했습니다"): (last name, first name). The whole
# Korean name sits in first_name, so Django's own "환영합니다, 김상담" reads right too.
DEMO_STAFF_NAMES = {OPERATOR_USERNAME: ("", "김상담"), SUPERVISOR_USERNAME: ("", "박팀장")}
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


def staff_permissions(codenames: str) -> QuerySet[Permission]:
    """The permissions across OPERATOR_APPS whose codename matches `codenames` (OPERATOR_PERMISSIONS,
    SUPERVISOR_PERMISSIONS): what the shop gives its staff roles."""
    return Permission.objects.filter(content_type__app_label__in=OPERATOR_APPS, codename__regex=codenames)


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
    supervisor: str = SUPERVISOR_USERNAME
    admin: str = ADMIN_USERNAME


@transaction.atomic
def demo_accounts_ensure(*, password: str) -> DemoAccounts:
    """A login per demo customer, an `operator` (decides, reviews, answers, takes tickets), a `supervisor` (the same,
    and assigns tickets to others), an `admin` superuser."""
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
    perms = list(staff_permissions(OPERATOR_PERMISSIONS))
    extra = list(staff_permissions(SUPERVISOR_PERMISSIONS))
    for username, granted in ((OPERATOR_USERNAME, perms), (SUPERVISOR_USERNAME, perms + extra)):
        last_name, first_name = DEMO_STAFF_NAMES[username]
        staff, created = User.objects.get_or_create(
            username=username, defaults={"is_staff": True, "last_name": last_name, "first_name": first_name}
        )
        if created:
            staff.set_password(password)
            staff.save()
        elif not (staff.last_name or staff.first_name):
            staff.last_name, staff.first_name = last_name, first_name
            staff.save(update_fields=["last_name", "first_name"])
        staff.user_permissions.add(*granted)
    admin, created = User.objects.get_or_create(
        username=ADMIN_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        admin.set_password(password)
        admin.save()
    return accounts


# --- order changes ---------------------------------------------------------------------------------
FINISHED = (Order.Status.CANCELLED, Order.Status.RETURNED)


def order_synced_record(changes: Iterable[tuple[str, str, str, int]], *, actor: Actor) -> None:
    """The shop's own word on its orders (the integration's upserts): one SYNCED row per applied version,
    `(order_id, status before or "" when new, status after, version)`, in bulk, in the caller's transaction."""
    OrderEvent.objects.bulk_create(
        OrderEvent.synced(order_id, actor=actor, before=before, after=after, version=version)
        for order_id, before, after, version in changes
    )


def _locked(order: Order) -> Order:
    locked = Order.objects.select_for_update(of=("self",)).get(pk=order.pk)
    if locked.status in FINISHED:
        raise InvalidState(
            f"주문 {locked.pk}은(는) 이미 '{locked.get_status_display()}' 상태입니다.", code="order_finished"
        )
    return locked


def _status_set(order: Order, locked: Order, status: str, *, actor: Actor, reference: str) -> None:
    before = locked.status
    locked.status = status
    locked.save(update_fields=["status"])
    order.status = status
    OrderEvent.status_changed(locked, actor=actor, before=before, after=status, reference=reference).save()


def order_address_change(*, order: Order, address: str, actor: Actor, reference: str = "") -> None:
    """Ship to `address` (already normalised and allowed by the caller). `reference`: the request's number."""
    with transaction.atomic():
        locked = _locked(order)
        if locked.shipping_address == address:
            return
        locked.shipping_address = address
        locked.save(update_fields=["shipping_address"])
        order.shipping_address = address
        OrderEvent.address_changed(locked, actor=actor, reference=reference).save()
    log.info("order.address_changed order_id=%s actor=%s", order.pk, actor.type)


def stock_reserve(*, order: Order, option: ProductOption, actor: Actor, quantity: int = 1) -> bool:
    """Hold `quantity` units of `option` for `order` (an exchange). False when there are not enough: a
    conditional decrement, so the database, not a read-then-write, decides who gets the last unit."""
    with transaction.atomic():
        reserved = ProductOption.objects.filter(pk=option.pk, stock__gte=quantity).update(stock=F("stock") - quantity)
        if reserved:
            OrderEvent.stock_reserved(order, actor=actor, option_id=option.pk, quantity=quantity).save()
    return bool(reserved)


def stock_release(*, order: Order, option_id: int, quantity: int, actor: Actor, reference: str = "") -> None:
    """Put `quantity` units of an option back on the shelf for `order`."""
    with transaction.atomic():
        ProductOption.objects.filter(pk=option_id).update(stock=F("stock") + quantity)
        OrderEvent.stock_released(
            order, actor=actor, option_id=option_id, quantity=quantity, reference=reference
        ).save()


def order_cancel(*, order: Order, actor: Actor, reference: str = "") -> None:
    """취소완료: cancelled before shipping, so the ordered units go back on the shelf."""
    with transaction.atomic():
        locked = _locked(order)
        _status_set(order, locked, Order.Status.CANCELLED, actor=actor, reference=reference)
        stock_release(
            order=locked, option_id=locked.option_id, quantity=locked.quantity, actor=actor, reference=reference
        )
    log.info("order.cancelled order_id=%s actor=%s", order.pk, actor.type)


def order_return(*, order: Order, actor: Actor, reference: str = "") -> None:
    """반품완료: a delivered order came back and is refunded."""
    with transaction.atomic():
        locked = _locked(order)
        _status_set(order, locked, Order.Status.RETURNED, actor=actor, reference=reference)
    log.info("order.returned order_id=%s actor=%s", order.pk, actor.type)


def customer_notices_set(*, customer: Customer, email_notices: bool, actor: Actor) -> Customer:
    """The customer's own switch for answer notices (the e-mail, and the `notify` flag of the shop's
    `ticket.replied` event). Returns the customer as stored; setting what already is changes nothing."""
    with transaction.atomic():
        locked = Customer.objects.select_for_update().get(pk=customer.pk)
        if locked.email_notices != email_notices:
            locked.email_notices = email_notices
            locked.save(update_fields=["email_notices"])
            log.info("customer.notices customer_id=%s email_notices=%s actor=%s", locked.pk, email_notices, actor.type)
    customer.email_notices = locked.email_notices
    return locked

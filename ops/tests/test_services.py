"""generate_synthetic: counts, database constraints, realistic shapes, determinism."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import Count, F, Q

from actions.models import ActionEvent, ActionRecord
from common.clock import today
from ops.services import CUSTOMER_ID_REGEX, ORDER_ID_REGEX, synthetic_generate
from orders.models import Customer, Order
from tickets.models import Ticket, TicketMessage

pytestmark = pytest.mark.django_db


def _synthetic_orders():
    return Order.objects.filter(order_id__regex=ORDER_ID_REGEX)


def _fingerprint():
    orders = list(
        _synthetic_orders()
        .order_by("order_id")
        .values_list(*(f.attname for f in Order._meta.concrete_fields))  # every column of the order
    )
    customers = list(
        Customer.objects.filter(customer_id__regex=CUSTOMER_ID_REGEX).order_by("pk").values_list("pk", "name", "phone")
    )
    tickets = list(Ticket.objects.order_by("id").values_list("customer_id", "category", "subject", "order_id"))
    refunds = list(ActionRecord.objects.order_by("order_id").values_list("order_id", "reason_category", "summary"))
    return orders, customers, tickets, refunds


def _wipe():
    ActionRecord.objects.all().delete()
    Ticket.objects.all().delete()
    _synthetic_orders().delete()
    Customer.objects.filter(customer_id__regex=CUSTOMER_ID_REGEX).delete()


def test_generates_the_requested_rows_with_valid_shapes():
    # Small batches so that several transactions and the batch boundaries are exercised.
    result = synthetic_generate(customers=30, orders=400, inquiries=25, pending_actions=12, seed=7, batch=7)
    assert (result.customers, result.orders, result.tickets, result.pending_actions) == (30, 400, 25, 12)

    # The shop fixture was loaded for products and options (it brings its own customers and orders).
    assert Customer.objects.filter(customer_id__regex=CUSTOMER_ID_REGEX).count() == 30
    orders = _synthetic_orders()
    assert orders.count() == 400
    on = today()
    assert not orders.filter(ordered_at__gt=on).exists()
    assert not orders.filter(Q(shipped_at__lt=F("ordered_at")) | Q(delivered_at__lt=F("shipped_at"))).exists()
    assert not orders.filter(delivered_at__gt=on).exists()
    assert not orders.filter(status__in=["DELIVERED", "RETURNED"], delivered_at__isnull=True).exists()
    assert not orders.filter(status__in=["PAID", "PREPARING", "CANCELLED"], shipped_at__isnull=False).exists()
    assert (
        not orders.filter(status="SHIPPING").filter(Q(shipped_at__isnull=True) | Q(delivered_at__isnull=False)).exists()
    )
    assert not orders.exclude(amount=F("option__product__price") * F("quantity")).exists()
    assert not orders.exclude(product_id=F("option__product_id")).exists()
    statuses = set(orders.values_list("status", flat=True))
    assert {"DELIVERED", "PREPARING", "SHIPPING"} <= statuses
    for order in orders[:50]:
        assert order.order_id[2:10] == order.ordered_at.strftime("%Y%m%d")

    # Tickets: open, each with exactly one first message written by the customer; orders are the customer's.
    tickets = Ticket.objects.annotate(n=Count("messages"))
    assert tickets.count() == 25 and set(tickets.values_list("n", flat=True)) == {1}
    assert set(TicketMessage.objects.values_list("author_type", flat=True)) == {"CUSTOMER"}
    assert not Ticket.objects.exclude(status="OPEN").exists()
    assert not Ticket.objects.filter(order__isnull=False).exclude(order__customer_id=F("customer_id")).exists()

    # Pending refunds: one per order, on delivered orders within the 30-day window, each with its audit event.
    refunds = ActionRecord.objects.all()
    assert refunds.count() == 12
    assert set(refunds.values_list("kind", "status").distinct()) == {("REFUND", "PENDING")}
    assert refunds.values("order_id").distinct().count() == 12
    assert not refunds.exclude(order__status="DELIVERED").exists()
    assert not refunds.filter(order__delivered_at__lt=on - timedelta(days=30)).exists()
    assert not refunds.exclude(customer_id=F("order__customer_id")).exists()
    assert not refunds.exclude(requested_on=on).exists()
    assert not refunds.filter(refund_amount__isnull=False).exists()
    assert ActionEvent.objects.filter(from_status="", to_status="PENDING", record__in=refunds).count() == 12


def test_same_seed_same_rows_and_a_second_run_adds_instead_of_colliding():
    synthetic_generate(customers=10, orders=60, inquiries=5, pending_actions=3, seed=42, batch=16)
    first = _fingerprint()
    _wipe()
    synthetic_generate(customers=10, orders=60, inquiries=5, pending_actions=3, seed=42, batch=16)
    assert _fingerprint() == first

    synthetic_generate(customers=5, orders=30, seed=42, batch=16)
    assert Customer.objects.filter(customer_id__regex=CUSTOMER_ID_REGEX).count() == 15
    assert _synthetic_orders().count() == 90
    assert _synthetic_orders().filter(customer_id__in=["S00000011", "S00000015"]).exists()


def test_orders_only_run_uses_existing_synthetic_customers():
    synthetic_generate(customers=4, orders=0, seed=1)
    synthetic_generate(customers=0, orders=20, seed=1)
    assert set(_synthetic_orders().values_list("customer_id", flat=True)) <= {f"S0000000{i}" for i in range(1, 5)}


def test_too_many_pending_refunds_is_a_clear_error():
    with pytest.raises(ValueError, match="pending refunds"):
        synthetic_generate(customers=2, orders=3, pending_actions=500, seed=1)


def test_command_parses_arguments_and_reports_and_enqueues_no_ai_work(capsys, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        call_command(
            "generate_synthetic",
            "--customers",
            "3",
            "--orders",
            "12",
            "--inquiries",
            "2",
            "--seed",
            "9",
            "--batch",
            "5",
            "--no-progress",
        )
    assert callbacks == []  # ticket_create would have registered a draft task per ticket
    out = capsys.readouterr().out
    assert "customers=3 orders=12 tickets=2 pending_actions=0" in out
    assert Ticket.objects.count() == 2

"""The access log (개인정보의 안전성 확보조치 기준): every admin and staff-API view of a customer's data writes
exactly one record, an export needs a reason, and nobody can change or delete the records."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import token_issue
from common.tests.factories import superuser
from cs_project.tests.helpers import customer_inquiry
from drafts.models import Draft
from orders.models import Order
from orders.tests.factories import CustomerFactory, OrderFactory, desk_operator
from privacy.models import AccessLogAppendOnly, AccessRecord

pytestmark = pytest.mark.django_db(transaction=True)

VIEWED, INQUIRER = "K001", "K002"


@pytest.fixture
def world(offline_model):
    """A customer with orders, whose pages are looked at, and another whose error inquiry has its draft."""
    viewed = CustomerFactory(customer_id=VIEWED)
    OrderFactory(customer=viewed, delivered_days_ago=2)
    OrderFactory(customer=viewed, status=Order.Status.PREPARING)
    ticket = customer_inquiry(CustomerFactory(customer_id=INQUIRER))
    draft = Draft.objects.get(ticket=ticket, status="GENERATED")
    return {
        "ticket": ticket,
        "draft": draft,
        "operator": desk_operator(username="operator"),
        "admin": superuser(username="admin"),
    }


def _admin(user) -> Client:
    client = Client(REMOTE_ADDR="10.1.2.3")
    client.force_login(user)
    return client


def _api(user) -> APIClient:
    client = APIClient(REMOTE_ADDR="10.1.2.4")
    _, key = token_issue(user=user, actor=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _records() -> list[tuple]:
    return list(
        AccessRecord.objects.order_by("id").values_list(
            "operator", "ip_address", "surface", "action", "object_type", "object_id", "customer_id"
        )
    )


def test_each_admin_page_of_customer_data_writes_exactly_one_record(world):
    ticket, draft = world["ticket"], world["draft"]
    order = Order.objects.filter(customer_id=VIEWED).first()
    client = _admin(world["operator"])
    pages = [
        (reverse("admin:orders_customer_change", args=[VIEWED]), ("CUSTOMER", VIEWED, VIEWED)),
        (reverse("admin:orders_order_change", args=[order.pk]), ("ORDER", order.pk, VIEWED)),
        (reverse("admin:tickets_ticket_change", args=[ticket.pk]), ("TICKET", str(ticket.pk), INQUIRER)),
        (reverse("admin:drafts_draft_change", args=[draft.pk]), ("DRAFT", str(draft.pk), INQUIRER)),
    ]
    for url, (object_type, object_id, customer) in pages:
        before = AccessRecord.objects.count()
        response = client.get(url)
        assert response.status_code == 200, url
        assert _records()[before:] == [("operator", "10.1.2.3", "ADMIN", "VIEW", object_type, object_id, customer)]
    # A list page is one record too, with no customer of its own.
    before = AccessRecord.objects.count()
    assert client.get(reverse("admin:tickets_ticket_changelist")).status_code == 200
    assert _records()[before:] == [("operator", "10.1.2.3", "ADMIN", "LIST", "TICKET", "", "")]


def test_each_staff_api_view_of_customer_data_writes_exactly_one_record(world):
    ticket, draft = world["ticket"], world["draft"]
    order = Order.objects.filter(customer_id=VIEWED).first()
    api = _api(world["operator"])
    calls = [
        (f"/api/ops/customers/{VIEWED}/", ("CUSTOMER", VIEWED, VIEWED)),
        (f"/api/ops/orders/{order.pk}/", ("ORDER", order.pk, VIEWED)),
        (f"/api/ops/tickets/{ticket.number}/", ("TICKET", str(ticket.pk), INQUIRER)),
        (f"/api/ops/drafts/{draft.pk}/", ("DRAFT", str(draft.pk), INQUIRER)),
    ]
    for url, (object_type, object_id, customer) in calls:
        before = AccessRecord.objects.count()
        response = api.get(url)
        assert response.status_code == 200, (url, response.content)
        assert _records()[before:] == [("operator", "10.1.2.4", "API", "VIEW", object_type, object_id, customer)]
    assert api.get(f"/api/ops/orders/{order.pk}/").json()["shipping_address"] == order.shipping_address
    before = AccessRecord.objects.count()
    assert api.get("/api/ops/tickets/").status_code == 200
    assert _records()[before:] == [("operator", "10.1.2.4", "API", "LIST", "TICKET", "", "")]


def test_a_refused_or_missing_page_writes_no_record(world):
    bare = get_user_model().objects.create_user("staff-bare", password="x", is_staff=True)
    assert _admin(bare).get(reverse("admin:orders_customer_change", args=[VIEWED])).status_code == 403
    assert _api(bare).get(f"/api/ops/customers/{VIEWED}/").status_code == 403
    assert _api(world["operator"]).get("/api/ops/customers/C999/").status_code == 404
    assert AccessRecord.objects.count() == 0


def test_export_without_a_reason_is_refused_and_with_one_is_recorded_with_it(world):
    api = _api(world["operator"])
    for body in ({}, {"reason": ""}, {"reason": "   "}):
        response = api.post(f"/api/ops/customers/{VIEWED}/export/", body, format="json")
        assert response.status_code == 400, body
        assert "reason" in response.json()["errors"]
        assert "orders" not in response.json()
    assert not AccessRecord.objects.filter(action="EXPORT").exists()

    response = api.post(f"/api/ops/customers/{VIEWED}/export/", {"reason": "고객 열람 요구 대응"}, format="json")
    assert response.status_code == 200
    assert {o["order_id"] for o in response.json()["orders"]} == set(
        Order.objects.filter(customer_id=VIEWED).values_list("order_id", flat=True)
    )
    assert list(AccessRecord.objects.filter(action="EXPORT").values_list("operator", "customer_id", "reason")) == [
        ("operator", VIEWED, "고객 열람 요구 대응")
    ]
    # The database refuses an export row without a reason, whoever writes it.
    with pytest.raises(IntegrityError), transaction.atomic():
        AccessRecord.objects.create(
            at="2026-11-02T10:00:00+09:00", operator="x", surface="API", action="EXPORT", object_type="CUSTOMER"
        )


def test_records_cannot_be_changed_or_deleted_by_anyone(world):
    superuser = world["admin"]
    admin = _admin(superuser)
    admin.get(reverse("admin:orders_customer_change", args=[VIEWED]))
    record = AccessRecord.objects.get()
    # The admin: no add, change or delete, not even for a superuser.
    change = reverse("admin:privacy_accessrecord_change", args=[record.pk])
    page = admin.get(change)
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert admin.post(change, {"operator": "someone-else", "customer_id": INQUIRER}).status_code == 403
    assert admin.get(reverse("admin:privacy_accessrecord_delete", args=[record.pk])).status_code == 403
    assert (
        admin.post(reverse("admin:privacy_accessrecord_delete", args=[record.pk]), {"post": "yes"}).status_code == 403
    )
    assert admin.get(reverse("admin:privacy_accessrecord_add")).status_code == 403
    changelist = admin.get(reverse("admin:privacy_accessrecord_changelist"))
    assert changelist.status_code == 200 and b'name="action"' not in changelist.content
    # The API: no endpoint takes a record.
    api = _api(superuser)
    for method in ("put", "patch", "delete"):
        assert getattr(api, method)(f"/api/ops/access-records/{record.pk}/").status_code == 404
    # The model and its queryset.
    record.operator = "someone-else"
    with pytest.raises(AccessLogAppendOnly):
        record.save()
    with pytest.raises(AccessLogAppendOnly):
        record.delete()
    with pytest.raises(AccessLogAppendOnly):
        AccessRecord.objects.filter(pk=record.pk).update(operator="someone-else")
    with pytest.raises(AccessLogAppendOnly):
        AccessRecord.objects.all().delete()
    assert AccessRecord.objects.get().operator == "admin"


@pytest.mark.postgres
def test_postgres_refuses_update_and_delete_outside_the_purge(world):
    from datetime import timedelta

    from common.clock import now
    from privacy.services import access_records_purge

    _admin(world["admin"]).get(reverse("admin:orders_customer_change", args=[VIEWED]))
    table = AccessRecord._meta.db_table
    for sql in (f"UPDATE {table} SET operator = 'x'", f"DELETE FROM {table}"):
        with pytest.raises(Exception, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert AccessRecord.objects.count() == 1
    # The retention purge removes only what is older than the period.
    old = AccessRecord(
        at=now() - timedelta(days=800), operator="old", surface="ADMIN", action="VIEW", object_type="ORDER"
    )
    old.save()
    assert access_records_purge() == 1
    assert list(AccessRecord.objects.values_list("operator", flat=True)) == ["admin"]

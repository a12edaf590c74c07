"""Integrations, Bearer keys and scopes, versioned upserts over the API, the event feed, the OpenAPI schema."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from integration import policy
from integration.models import Integration, SyncRecord
from integration.tests.factories import (
    CUSTOMER_ID,
    ORDER_ID,
    client_for,
    customer_body,
    make_integration,
    order_body,
    product_body,
    put,
    seeded_client,
)
from orders.models import Customer, Order, Product, ProductOption

pytestmark = pytest.mark.django_db


def test_integration_create_prints_key_and_secret_once_and_stores_only_the_key_hash():
    out = StringIO()
    call_command(
        "integration_create", "myshop", "--webhook-url", "http://127.0.0.1:9/h", "--format", "json", stdout=out
    )
    printed = json.loads(out.getvalue())
    assert set(printed) == {"name", "api_key", "signing_secret"}
    integration = Integration.objects.get(name="myshop")
    assert integration.api_key_hash == policy.api_key_hash(printed["api_key"])
    stored = json.dumps([getattr(integration, f.attname) for f in Integration._meta.fields], default=str)
    assert printed["api_key"] not in stored and printed["signing_secret"] not in stored
    assert integration.webhook_url == "http://127.0.0.1:9/h"
    assert sorted(integration.scopes) == ["actions:report", "catalog:write", "events:read"]


def test_without_or_with_a_wrong_key_nothing_is_answered():
    make_integration()
    assert APIClient().put(
        f"/api/integration/customers/{CUSTOMER_ID}/", customer_body(), format="json"
    ).status_code in (401, 403)
    response = put(client_for("csk_wrong"), "customer", CUSTOMER_ID, customer_body())
    assert response.status_code == 401
    assert not Customer.objects.filter(pk=CUSTOMER_ID).exists()


def test_an_inactive_integrations_key_is_refused():
    issued = make_integration()
    Integration.objects.update(active=False)
    assert put(client_for(issued.api_key), "customer", CUSTOMER_ID, customer_body()).status_code == 401


def test_a_key_without_the_scope_is_refused():
    issued = make_integration(scopes=["events:read"])
    response = put(client_for(issued.api_key), "customer", CUSTOMER_ID, customer_body())
    assert response.status_code == 403 and not Customer.objects.filter(pk=CUSTOMER_ID).exists()


def test_customer_product_order_upsert_creates_the_desk_rows():
    _, client = seeded_client()
    response = put(client, "order", ORDER_ID, order_body())
    assert response.status_code == 200 and response.json() == {"applied": True, "version": 1}
    order = Order.objects.get(pk=ORDER_ID)
    assert (order.customer_id, order.product_id, order.option.label, order.amount, order.status) == (
        CUSTOMER_ID,
        "P900",
        "250",
        59000,
        "DELIVERED",
    )
    assert list(ProductOption.objects.filter(product_id="P900").values_list("label", "stock")) == [
        ("250", 3),
        ("260", 2),
    ]


def test_a_stale_version_changes_nothing_and_the_same_version_is_a_no_op():
    _, client = seeded_client()
    put(client, "order", ORDER_ID, order_body(version=5, shipping_address="주소 A"))
    stale = put(client, "order", ORDER_ID, order_body(version=4, shipping_address="주소 B"))
    assert stale.status_code == 200 and stale.json() == {"applied": False, "reason": "stale", "version": 5}
    same = put(client, "order", ORDER_ID, order_body(version=5, shipping_address="주소 C"))
    assert same.json() == {"applied": False, "reason": "same_version", "version": 5}
    assert Order.objects.get(pk=ORDER_ID).shipping_address == "주소 A"
    newer = put(client, "order", ORDER_ID, order_body(version=6, status="RETURNED"))
    assert newer.json()["applied"] is True and Order.objects.get(pk=ORDER_ID).status == "RETURNED"


def test_an_invalid_object_is_refused_whole_with_field_errors():
    _, client = seeded_client()
    body = order_body(status="DELIVERED", delivered_at=None, amount="-1")
    response = put(client, "order", ORDER_ID, body)
    assert response.status_code == 400
    assert {"amount"} <= set(response.json()["errors"])
    bad_product = product_body(version=2, options=[{"option_id": "O1", "name": "250", "stock": -1}])
    assert put(client, "product", "P900", bad_product).status_code == 400
    assert not Order.objects.filter(pk=ORDER_ID).exists()
    assert ProductOption.objects.get(product_id="P900", label="250").stock == 3
    assert SyncRecord.objects.get(kind="product", external_id="P900").version == 1


@pytest.mark.parametrize(
    ("kind", "external_id", "change", "field"),
    [
        # Numbers the columns cannot hold: 400, not a database error (schemathesis found a 500 here).
        ("customer", CUSTOMER_ID, {"version": 2**70}, "version"),
        ("product", "P900", {"options": [{"option_id": "O1", "name": "250", "stock": 2**40}]}, "options"),
        (
            "order",
            ORDER_ID,
            {"items": [{"product_id": "P900", "option_id": "O1", "quantity": 2**40, "unit_price": "1"}]},
            "items",
        ),
        # What the document says, and only that: amounts as whole won (an integer or a string with only zeros after
        # the point), integers as integers, lists not empty.
        ("order", ORDER_ID, {"amount": 59000.0}, "amount"),
        ("order", ORDER_ID, {"amount": "59000.5"}, "amount"),
        ("order", ORDER_ID, {"amount": ""}, "amount"),
        ("order", ORDER_ID, {"version": "3"}, "version"),
        ("order", ORDER_ID, {"version": True}, "version"),
        ("order", ORDER_ID, {"version": 2.0}, "version"),  # JSON 2.0 is a float: not the documented integer
        ("customer", CUSTOMER_ID, {"version": 2e0}, "version"),
        ("product", "P900", {"options": [{"option_id": "O1", "name": "250", "stock": 3.0}]}, "options"),
        ("order", ORDER_ID, {"items": []}, "items"),
        ("order", ORDER_ID, {"customer_id": 900}, "customer_id"),
        ("order", ORDER_ID, {"customer_id": " S900"}, "customer_id"),
        ("product", "P900", {"options": []}, "options"),
        ("product", "P900", {"price": "-5"}, "price"),
    ],
)
def test_what_the_schema_does_not_allow_is_refused_and_stores_nothing(kind, external_id, change, field):
    _, client = seeded_client()
    body = {"customer": customer_body, "product": product_body, "order": order_body}[kind](version=2)
    body.update(change)
    response = put(client, kind, external_id, body)
    assert response.status_code == 400 and field in response.json()["errors"], response.json()
    assert SyncRecord.objects.get(kind="product", external_id="P900").version == 1
    assert not Order.objects.filter(pk=ORDER_ID).exists()


def test_the_ids_in_the_path_are_documented_with_their_form(client):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    patterns = {
        name: p["schema"]["pattern"]
        for path, ops in paths.items()
        if path.startswith("/api/integration/")
        for p in ops.get("put", {}).get("parameters", [])
        for name in [p["name"]]
    }
    assert patterns == {
        "customer_id": "^[A-Za-z0-9_-]{1,16}$",
        "product_id": "^[A-Za-z0-9_-]{1,16}$",
        "order_id": "^HR[0-9]{11,18}$",
    }


def test_an_order_naming_an_unknown_option_stores_nothing():
    """Well-formed but naming what this shop has not sent: 409 (the state, not the request, is wrong), with
    the field errors; the same request works once the option exists."""
    _, client = seeded_client()
    body = order_body(items=[{"product_id": "P900", "option_id": "NOPE", "quantity": 1, "unit_price": "1"}])
    response = put(client, "order", ORDER_ID, body)
    assert response.status_code == 409 and response.json()["code"] == "missing_reference"
    assert "items" in response.json()["errors"] and response.json()["detail"].startswith("items: ")
    assert not Order.objects.filter(pk=ORDER_ID).exists() and not SyncRecord.objects.filter(kind="order").exists()
    options = [{"option_id": "O1", "name": "250", "stock": 3}, {"option_id": "NOPE", "name": "260", "stock": 1}]
    assert put(client, "product", "P900", product_body(version=2, options=options)).status_code == 200
    assert put(client, "order", ORDER_ID, body).json()["applied"] is True


def test_an_order_before_its_customer_is_a_conflict_until_the_customer_is_sent():
    issued = make_integration("fresh")
    client = client_for(issued.api_key)
    assert put(client, "product", "P900", product_body()).status_code == 200
    early = put(client, "order", ORDER_ID, order_body())
    assert early.status_code == 409 and set(early.json()["errors"]) == {"customer_id"}
    assert put(client, "customer", CUSTOMER_ID, customer_body()).status_code == 200
    assert put(client, "order", ORDER_ID, order_body()).status_code == 200


def test_one_integrations_key_cannot_touch_another_integrations_data():
    _, first = seeded_client("first")
    put(first, "order", ORDER_ID, order_body())
    second = make_integration("second")
    other = client_for(second.api_key)
    assert put(other, "customer", CUSTOMER_ID, customer_body(version=9, name="탈취")).status_code == 403
    assert put(other, "order", ORDER_ID, order_body(version=9, amount="1")).status_code == 403
    assert Customer.objects.get(pk=CUSTOMER_ID).name == "김연동" and Order.objects.get(pk=ORDER_ID).amount == 59000
    # Its feed holds none of the first one's events, and it cannot report on the first one's actions.
    assert other.get("/api/integration/events/").json() == {"events": []}


def test_the_desks_own_demo_data_cannot_be_overwritten(customer):
    # `customer` is the desk's own, as the demo's are: no shop sent it.
    issued = make_integration()
    response = put(client_for(issued.api_key), "customer", customer.customer_id, customer_body(name="탈취"))
    assert response.status_code == 403 and Customer.objects.get(pk=customer.customer_id).name != "탈취"


def test_import_shop_applies_lines_reports_errors_and_is_idempotent(tmp_path):
    make_integration()
    path = tmp_path / "shop.jsonl"
    lines = [
        {"type": "customer", "customer_id": CUSTOMER_ID, **customer_body()},
        {"type": "product", "product_id": "P900", **product_body()},
        {"type": "order", "order_id": ORDER_ID, **order_body()},
        {"type": "order", "order_id": "HR20260725902", **order_body(amount="oops")},
        {"type": "coupon"},
    ]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\nnot json\n")
    out, err = StringIO(), StringIO()
    with pytest.raises(Exception, match="3개 줄"):
        call_command("import_shop", str(path), "--integration", "myshop", "--no-progress", stdout=out, stderr=err)
    assert "applied=3 unchanged=0 errors=3" in out.getvalue()
    assert "line 4:" in err.getvalue() and "amount" in err.getvalue() and "line 6:" in err.getvalue()
    assert Order.objects.filter(pk=ORDER_ID).exists() and not Order.objects.filter(pk="HR20260725902").exists()
    out = StringIO()
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines[:3]) + "\n")
    call_command("import_shop", str(path), "--integration", "myshop", "--no-progress", stdout=out, stderr=StringIO())
    assert "applied=0 unchanged=3 errors=0" in out.getvalue()
    assert Product.objects.count() == 1


def test_the_integration_endpoints_are_in_the_openapi_document():
    paths = APIClient().get("/api/schema/?format=json").json()["paths"]
    for path in (
        "/api/integration/customers/{customer_id}/",
        "/api/integration/products/{product_id}/",
        "/api/integration/orders/{order_id}/",
        "/api/integration/events/",
        "/api/integration/actions/{action_id}/result/",
        "/api/auth/shop-session/",
    ):
        assert path in paths, path
    assert "put" in paths["/api/integration/orders/{order_id}/"]

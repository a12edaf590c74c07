"""Test data as the shop sends it, and the helpers the integration tests share."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.utils import timezone
from rest_framework.test import APIClient

from actions.models import ActionRecord
from actions.services import refund_request
from common.actors import Actor
from common.models import OutboxMessage
from integration.policy import session_signature
from integration.services.integrations import IssuedIntegration, integration_create
from integration.services.sessions import shop_session_open
from integration.services.sync import shop_upsert
from integration.services.webhooks import WEBHOOK_TOPIC
from integration.simulator import ShopSimulator
from orders.models import Customer

ORDER_ID = "HR20260725901"
CUSTOMER_ID = "S900"


def make_integration(name: str = "myshop", *, webhook_url: str = "", **kwargs) -> IssuedIntegration:
    return integration_create(name=name, webhook_url=webhook_url, actor=Actor.system("test"), **kwargs)


@contextmanager
def shop_connected() -> Iterator[tuple[IssuedIntegration, ShopSimulator]]:
    """A shop with a webhook at a live loopback receiver (the reference shop), and its data imported."""
    simulator = ShopSimulator(signing_secret="").start()
    try:
        issued = make_integration(webhook_url=simulator.url)
        simulator.signing_secret = issued.signing_secret
        simulator.api_key = issued.api_key
        seed_shop(issued)
        yield issued, simulator
    finally:
        simulator.stop()


def client_for(api_key: str) -> APIClient:
    """An API client that calls as the shop (its Bearer key)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key}")
    return client


def put(client, kind, external_id, body):
    """PUT one object through the shop API."""
    return client.put(f"/api/integration/{kind}s/{external_id}/", body, format="json")


def seeded_client(name="myshop"):
    """A new integration's client, with the shop's customer and product already sent."""
    issued = make_integration(name)
    client = client_for(issued.api_key)
    assert put(client, "customer", CUSTOMER_ID, customer_body()).status_code == 200
    assert put(client, "product", "P900", product_body()).status_code == 200
    return issued, client


def shop_customer_client(issued: IssuedIntegration, *, valid_s: int = 300) -> APIClient:
    """The shop's customer, arrived through a shop-signed session: a client with their customer token."""
    expires = int(time.time()) + valid_s
    _, key = shop_session_open(
        integration_name=issued.integration.name,
        customer_id=CUSTOMER_ID,
        expires_at=expires,
        signature=session_signature(issued.signing_secret, CUSTOMER_ID, expires),
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def refund_pending(reason: str = "밑창 불량") -> ActionRecord:
    """The shop's customer asks the agent for a refund of the shop's order (a defect): 승인대기."""
    customer = Customer.objects.get(pk=CUSTOMER_ID)
    return refund_request(
        customer=customer,
        order_id=ORDER_ID,
        reason_category="DEFECT",
        reason=reason,
        actor=Actor.customer_agent(customer),
    ).record


def webhook_delivery() -> OutboxMessage:
    """The one webhook delivery the test expects."""
    return OutboxMessage.objects.get(topic=WEBHOOK_TOPIC)


def outbox_make_due() -> None:
    """Every pending outbox row may be tried now (its backoff is over)."""
    OutboxMessage.objects.filter(status="PENDING").update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def customer_body(version: int = 1, **over) -> dict:
    return {"name": "김연동", "phone": "010-1234-5678", "email": "s900@example.com", "version": version, **over}


def product_body(version: int = 1, **over) -> dict:
    return {
        "name": "연동 러닝화",
        "price": "59000",
        "options": [{"option_id": "O1", "name": "250", "stock": 3}, {"option_id": "O2", "name": "260", "stock": 2}],
        "version": version,
        **over,
    }


def order_body(version: int = 1, **over) -> dict:
    return {
        "customer_id": CUSTOMER_ID,
        "status": "DELIVERED",
        "ordered_at": "2026-07-20",
        "shipped_at": "2026-07-22",
        "delivered_at": "2026-07-25",
        "shipping_address": "서울시 강남구 테헤란로 1",
        "items": [{"product_id": "P900", "option_id": "O1", "quantity": 1, "unit_price": "59000"}],
        "amount": "59000",
        "version": version,
        **over,
    }


def seed_shop(issued: IssuedIntegration, *, order_id: str = ORDER_ID, **order_over) -> None:
    actor = Actor.system("test")
    integration = issued.integration
    shop_upsert(integration=integration, kind="customer", external_id=CUSTOMER_ID, data=customer_body(), actor=actor)
    shop_upsert(integration=integration, kind="product", external_id="P900", data=product_body(), actor=actor)
    shop_upsert(integration=integration, kind="order", external_id=order_id, data=order_body(**order_over), actor=actor)


def jsonl_lines(order_ids: list[str]) -> str:
    lines = [
        {"type": "customer", "customer_id": CUSTOMER_ID, **customer_body()},
        {"type": "product", "product_id": "P900", **product_body()},
    ]
    lines += [{"type": "order", "order_id": oid, **order_body()} for oid in order_ids]
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n"

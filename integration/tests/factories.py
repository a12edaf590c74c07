"""Test data as the shop sends it."""

from __future__ import annotations

import json

from common.actors import Actor
from integration.services.integrations import IssuedIntegration, integration_create
from integration.services.sync import shop_upsert

ORDER_ID = "HR20260725901"
CUSTOMER_ID = "S900"


def make_integration(name: str = "myshop", *, webhook_url: str = "", **kwargs) -> IssuedIntegration:
    return integration_create(name=name, webhook_url=webhook_url, actor=Actor.system("test"), **kwargs)


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

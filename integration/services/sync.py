"""Customers, products and orders the shop sends, one object at a time: validated, owned by the integration that
first sent them (its SyncRecord) and applied only when their version is new. The bulk import (`imports`) applies
the same rules to many lines at once."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from rest_framework.exceptions import ValidationError
from rest_framework.serializers import Serializer
from rest_framework.utils.serializer_helpers import ReturnDict

from common.actors import Actor
from integration import policy
from integration.errors import InvalidInput, MissingReference, NotOwned
from integration.models import Integration, SyncRecord
from integration.schemas import SCHEMAS, id_valid
from integration.services.access import integration_require_scope
from orders.models import Customer, Order, Product, ProductOption
from orders.services import order_synced_record


@dataclass(frozen=True)
class Upserted:
    applied: bool
    reason: str
    version: int


def object_validated(kind: str, external_id: str, data: dict, schema: Serializer | None = None) -> dict:
    """The object's validated data, or InvalidInput with the serializer's field errors. `schema`: an instance of
    SCHEMAS[kind] to reuse for many objects, as a ListSerializer reuses its child (a new serializer deep-copies
    all its fields, which is most of the cost of validating 100k small objects); same data, same errors."""
    if not id_valid(kind, external_id):
        raise InvalidInput({f"{kind}_id": ["형식이 올바르지 않습니다."]})
    if schema is None:
        schema = SCHEMAS[kind]()
    try:
        return schema.run_validation(data)
    except ValidationError as exc:
        raise InvalidInput(ReturnDict(exc.detail, serializer=schema)) from None


def _not_owned(external_id: str) -> NotOwned:
    return NotOwned(f"{external_id}은(는) 이 연동이 관리하는 데이터가 아닙니다.")


def write_verdict(
    integration: Integration, record: SyncRecord | None, external_id: str, version: int, exists: bool
) -> str:
    """May this integration write the object, and is `version` new? Raises NotOwned."""
    if record is None:
        if exists:  # the desk's own data (the demo) or an object created before any integration
            raise _not_owned(external_id)
        return "apply"
    if record.integration_id != integration.pk:
        raise _not_owned(external_id)
    return policy.version_verdict(stored=record.version, incoming=version)


def upsert_unchanged(verdict: str, record: SyncRecord) -> Upserted:
    return Upserted(False, "stale" if verdict == "stale" else "same_version", record.version)


def _claim(
    integration: Integration, kind: str, external_id: str, version: int, exists: bool
) -> tuple[SyncRecord | None, str]:
    """Lock the object's sync record (or check it may be created). Returns (record or None, verdict)."""
    record = SyncRecord.objects.select_for_update().filter(kind=kind, external_id=external_id).first()
    return record, write_verdict(integration, record, external_id, version, exists)


def _record_version(
    integration: Integration,
    record: SyncRecord | None,
    kind: str,
    external_id: str,
    version: int,
    data: dict | None = None,
) -> None:
    if record is None:
        SyncRecord.objects.create(
            integration=integration, kind=kind, external_id=external_id, version=version, data=data or {}
        )
    else:
        record.version = version
        if data is not None:
            record.data = data
        record.save(update_fields=["version", "data", "updated_at"])


def owned_record(integration: Integration, kind: str, external_id: str) -> SyncRecord | None:
    return SyncRecord.objects.filter(integration=integration, kind=kind, external_id=external_id).first()


def shop_upsert(*, integration: Integration, kind: str, external_id: str, data: dict, actor: Actor) -> Upserted:
    """Create or update one customer/product/order as a whole. Idempotent by version: an older version
    changes nothing ('stale'), the same one is a no-op ('same_version'). Raises InvalidInput (nothing stored)."""
    integration_require_scope(integration, Integration.Scope.CATALOG_WRITE)
    valid = object_validated(kind, external_id, data)
    version = valid["version"]
    for attempt in range(2):
        try:
            with transaction.atomic():
                return _UPSERTS[kind](integration, external_id, valid, version, actor)
        except IntegrityError:  # a concurrent first write of the same object: the second sees its record
            if attempt:
                raise
    raise AssertionError("unreachable")


CUSTOMER_FIELDS = ("name", "phone", "email")
ORDER_FIELDS = (
    "customer",
    "product",
    "option",
    "quantity",
    "amount",
    "status",
    "shipping_address",
    "ordered_at",
    "shipped_at",
    "delivered_at",
)


def customer_values(valid: dict) -> dict:
    return {"name": valid["name"], "phone": valid["phone"], "email": valid["email"]}


def customer_record_data(valid: dict) -> dict:
    return {"default_address": valid["default_address"]}


def _customer_upsert(integration: Integration, external_id: str, valid: dict, version: int, _actor: Actor) -> Upserted:
    exists = Customer.objects.filter(pk=external_id).exists()
    record, verdict = _claim(integration, "customer", external_id, version, exists)
    if verdict != "apply":
        return upsert_unchanged(verdict, record)
    Customer.objects.update_or_create(pk=external_id, defaults=customer_values(valid))
    _record_version(integration, record, "customer", external_id, version, customer_record_data(valid))
    return Upserted(True, "", version)


def product_upsert(integration: Integration, external_id: str, valid: dict, version: int, _actor: Actor) -> Upserted:
    exists = Product.objects.filter(pk=external_id).exists()
    record, verdict = _claim(integration, "product", external_id, version, exists)
    if verdict != "apply":
        return upsert_unchanged(verdict, record)
    product, _ = Product.objects.update_or_create(
        pk=external_id, defaults={"name": valid["name"], "price": valid["price"]}
    )
    mapping = dict((record.data or {}).get("options", {})) if record else {}
    # Labels are unique per product: free the labels being reassigned before writing the new ones.
    wanted_labels = {o["name"] for o in valid["options"]}
    for option_id, pk in mapping.items():
        if option_id not in {o["option_id"] for o in valid["options"]}:
            ProductOption.objects.filter(pk=pk, label__in=wanted_labels).update(label=f"~{pk}")
    for option in valid["options"]:
        pk = mapping.get(option["option_id"])
        if pk is not None and ProductOption.objects.filter(pk=pk, product=product).exists():
            ProductOption.objects.filter(product=product, label=option["name"]).exclude(pk=pk).update(label=f"~{pk}~")
            ProductOption.objects.filter(pk=pk).update(label=option["name"], stock=option["stock"])
        else:
            row, _ = ProductOption.objects.update_or_create(
                product=product, label=option["name"], defaults={"stock": option["stock"]}
            )
            mapping[option["option_id"]] = row.pk
    _record_version(integration, record, "product", external_id, version, {"options": mapping})
    return Upserted(True, "", version)


def order_option(
    integration: Integration, valid: dict, customer_record: SyncRecord | None, product_record: SyncRecord | None
) -> int:
    """The ProductOption pk an order's line names, given the sync records of its customer and product (None:
    never sent). Raises MissingReference unless this integration sent both and the product has that option."""
    item = valid["items"][0]
    errors: dict[str, list[str]] = {}
    if customer_record is None or customer_record.integration_id != integration.pk:
        errors["customer_id"] = ["이 연동이 보낸 고객이 아닙니다. 고객을 먼저 보내 주세요."]
    if product_record is not None and product_record.integration_id != integration.pk:
        product_record = None
    option_pk = (product_record.data or {}).get("options", {}).get(item["option_id"]) if product_record else None
    if product_record is None:
        errors["items"] = ["이 연동이 보낸 상품이 아닙니다. 상품을 먼저 보내 주세요."]
    elif option_pk is None:
        errors["items"] = [f"상품 {item['product_id']}에 옵션 {item['option_id']}이(가) 없습니다."]
    if errors:
        raise MissingReference(errors)
    return option_pk


def order_values(valid: dict, option_pk: int) -> dict:
    item = valid["items"][0]
    return {
        "customer_id": valid["customer_id"],
        "product_id": item["product_id"],
        "option_id": option_pk,
        "quantity": item["quantity"],
        "amount": valid["amount"],
        "status": valid["status"],
        "shipping_address": valid["shipping_address"],
        "ordered_at": valid["ordered_at"],
        "shipped_at": valid["shipped_at"],
        "delivered_at": valid["delivered_at"],
    }


def order_record_data(valid: dict) -> dict:
    """The instants the shop sent, as it sent them (the order itself keeps the Seoul day)."""
    return {"times": valid["exact_times"]} if valid.get("exact_times") else {}


def _order_upsert(integration: Integration, external_id: str, valid: dict, version: int, actor: Actor) -> Upserted:
    before = Order.objects.filter(pk=external_id).values_list("status", flat=True).first()
    record, verdict = _claim(integration, "order", external_id, version, before is not None)
    if verdict != "apply":
        return upsert_unchanged(verdict, record)
    option_pk = order_option(
        integration,
        valid,
        owned_record(integration, "customer", valid["customer_id"]),
        owned_record(integration, "product", valid["items"][0]["product_id"]),
    )
    Order.objects.update_or_create(pk=external_id, defaults=order_values(valid, option_pk))
    _record_version(integration, record, "order", external_id, version, order_record_data(valid))
    order_synced_record([(external_id, before or "", valid["status"], version)], actor=actor)
    return Upserted(True, "", version)


_UPSERTS = {"customer": _customer_upsert, "product": product_upsert, "order": _order_upsert}


def order_owner(order_id: str | None) -> Integration | None:
    if not order_id:
        return None
    record = SyncRecord.objects.filter(kind="order", external_id=order_id).select_related("integration").first()
    return record.integration if record else None


def customer_owner(customer_id: str | None) -> Integration | None:
    if not customer_id:
        return None
    record = SyncRecord.objects.filter(kind="customer", external_id=customer_id).select_related("integration").first()
    return record.integration if record else None

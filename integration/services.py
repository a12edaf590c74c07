"""Every state change of the shop connection: integrations, upserts from the shop, events out, results in,
shop-signed sessions."""

from __future__ import annotations

import hmac
import http.client
import json
import logging
import operator
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import reduce

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.exceptions import ValidationError
from rest_framework.serializers import Serializer
from rest_framework.utils.serializer_helpers import ReturnDict

from accounts.services import token_issue
from actions.execution import ShopExecutor
from actions.models import ActionRecord
from actions.services import action_result_record
from common.actors import Actor
from common.errors import DomainError, NotFound, PermissionDenied
from common.events import SHOP_EVENT_TOPIC
from common.numbering import parse_canonical_number
from common.outbox import (
    OutboxMessage,
    outbox_defer,
    outbox_done,
    outbox_enqueue,
    outbox_hold,
    outbox_release,
    outbox_request,
)
from integration import policy
from integration.errors import InvalidInput, MissingReference, NotOwned
from integration.models import Integration, ShopEvent, ShopSessionUse, SyncRecord
from integration.outbound import TargetForbidden, webhook_post
from integration.schemas import SCHEMAS, id_valid
from integration.secrets import secret_decrypt, secret_encrypt
from orders.models import Customer, Order, Product, ProductOption
from orders.services import order_synced_record

log = logging.getLogger(__name__)

WEBHOOK_TOPIC = "webhook.deliver"
ALL_SCOPES = [s.value for s in Integration.Scope]


# --- integrations ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class IssuedIntegration:
    integration: Integration
    api_key: str  # shown once
    signing_secret: str  # shown once


def integration_create(
    *,
    name: str,
    webhook_url: str = "",
    scopes: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    actor: Actor,
) -> IssuedIntegration:
    scopes = list(scopes) if scopes else list(ALL_SCOPES)
    _settings_checked(webhook_url=webhook_url, scopes=scopes)
    api_key = "csk_" + secrets.token_urlsafe(32)
    signing_secret = "whsec_" + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            integration = Integration.objects.create(
                name=name,
                api_key_prefix=api_key[:12],
                api_key_hash=policy.api_key_hash(api_key),
                signing_secret_encrypted=secret_encrypt(signing_secret),
                webhook_url=webhook_url,
                scopes=scopes,
                allowed_origins=list(allowed_origins or []),
            )
    except IntegrityError:
        raise InvalidInput({"name": ["같은 이름의 연동이 이미 있습니다."]}) from None
    log.info("integration.created integration=%s actor=%s", integration.name, actor.type)
    return IssuedIntegration(integration, api_key, signing_secret)


def integration_webhook_url_problem(url: str) -> str | None:
    """Why webhooks may not go to `url` under this deployment's settings (a Korean message), or None. Checked
    when an integration is created or edited; what counts is the check at each connection (integration.outbound)."""
    if len(url or "") > Integration._meta.get_field("webhook_url").max_length:
        return "웹훅 URL이 너무 깁니다(500자 이하)."
    return policy.webhook_url_problem(url or "", allow_private=bool(settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS))


def _settings_checked(*, webhook_url: str, scopes: list[str]) -> None:
    errors: dict[str, list[str]] = {}
    problem = integration_webhook_url_problem(webhook_url)
    if problem:
        errors["webhook_url"] = [problem]
    unknown = sorted(set(scopes) - set(ALL_SCOPES))
    if unknown:
        errors["scopes"] = [f"알 수 없는 권한: {', '.join(unknown)}"]
    if errors:
        raise InvalidInput(errors)


def integration_update(
    *,
    integration: Integration,
    webhook_url: str,
    scopes: list[str],
    allowed_origins: list[str],
    active: bool,
    actor: Actor,
) -> Integration:
    """What an operator may change on an integration (the admin form). Switching it back on releases the
    webhook deliveries held while it was paused. Raises InvalidInput (nothing changed)."""
    scopes = list(scopes or [])
    _settings_checked(webhook_url=webhook_url, scopes=scopes)
    with transaction.atomic():
        locked = Integration.objects.select_for_update().get(pk=integration.pk)
        resumed = active and not locked.active
        locked.webhook_url = webhook_url
        locked.scopes = scopes
        locked.allowed_origins = list(allowed_origins or [])
        locked.active = active
        locked.save(update_fields=["webhook_url", "scopes", "allowed_origins", "active"])
        # What waited for the shop while it was paused (its refunds' events among them) goes out now.
        released = outbox_release(message_ids=_held_deliveries([locked.pk])) if resumed else 0
    log.info(
        "integration.updated integration=%s active=%s released=%d actor=%s",
        locked.name,
        locked.active,
        released,
        actor.type,
    )
    return locked


def integration_by_api_key(api_key: str) -> Integration | None:
    """The active integration whose key this is. The lookup is by hash (an index), and the stored hash is
    compared again in constant time."""
    digest = policy.api_key_hash(api_key)
    integration = Integration.objects.filter(api_key_hash=digest, active=True).first()
    if integration is None or not hmac.compare_digest(integration.api_key_hash, digest):
        return None
    return integration


def integration_signing_secret(integration: Integration) -> str:
    return secret_decrypt(integration.signing_secret_encrypted)


def integration_require_scope(integration: Integration, scope: str) -> None:
    if scope not in (integration.scopes or []):
        raise PermissionDenied(f"이 연동에는 '{scope}' 권한이 없습니다.")


# --- upserts --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upserted:
    applied: bool
    reason: str
    version: int


# What one import line comes to: its result, or the error the line path would have raised for it.
ImportResult = Upserted | DomainError

IMPORT_CHUNK_SIZE = 1000


def _validated(kind: str, external_id: str, data: dict, schema: Serializer | None = None) -> dict:
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


def _verdict(integration: Integration, record: SyncRecord | None, external_id: str, version: int, exists: bool) -> str:
    """May this integration write the object, and is `version` new? Raises NotOwned."""
    if record is None:
        if exists:  # the desk's own data (the demo) or an object created before any integration
            raise _not_owned(external_id)
        return "apply"
    if record.integration_id != integration.pk:
        raise _not_owned(external_id)
    return policy.version_verdict(stored=record.version, incoming=version)


def _unchanged(verdict: str, record: SyncRecord) -> Upserted:
    return Upserted(False, "stale" if verdict == "stale" else "same_version", record.version)


def _claim(
    integration: Integration, kind: str, external_id: str, version: int, exists: bool
) -> tuple[SyncRecord | None, str]:
    """Lock the object's sync record (or check it may be created). Returns (record or None, verdict)."""
    record = SyncRecord.objects.select_for_update().filter(kind=kind, external_id=external_id).first()
    return record, _verdict(integration, record, external_id, version, exists)


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


def _owned(integration: Integration, kind: str, external_id: str) -> SyncRecord | None:
    return SyncRecord.objects.filter(integration=integration, kind=kind, external_id=external_id).first()


def shop_upsert(*, integration: Integration, kind: str, external_id: str, data: dict, actor: Actor) -> Upserted:
    """Create or update one customer/product/order as a whole. Idempotent by version: an older version
    changes nothing ('stale'), the same one is a no-op ('same_version'). Raises InvalidInput (nothing stored)."""
    integration_require_scope(integration, Integration.Scope.CATALOG_WRITE)
    valid = _validated(kind, external_id, data)
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


def _customer_values(valid: dict) -> dict:
    return {"name": valid["name"], "phone": valid["phone"], "email": valid["email"]}


def _customer_record_data(valid: dict) -> dict:
    return {"default_address": valid["default_address"]}


def _customer_upsert(integration: Integration, external_id: str, valid: dict, version: int, _actor: Actor) -> Upserted:
    exists = Customer.objects.filter(pk=external_id).exists()
    record, verdict = _claim(integration, "customer", external_id, version, exists)
    if verdict != "apply":
        return _unchanged(verdict, record)
    Customer.objects.update_or_create(pk=external_id, defaults=_customer_values(valid))
    _record_version(integration, record, "customer", external_id, version, _customer_record_data(valid))
    return Upserted(True, "", version)


def _product_upsert(integration: Integration, external_id: str, valid: dict, version: int, _actor: Actor) -> Upserted:
    exists = Product.objects.filter(pk=external_id).exists()
    record, verdict = _claim(integration, "product", external_id, version, exists)
    if verdict != "apply":
        return _unchanged(verdict, record)
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


def _order_option(
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


def _order_values(valid: dict, option_pk: int) -> dict:
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


def _order_record_data(valid: dict) -> dict:
    """The instants the shop sent, as it sent them (the order itself keeps the Seoul day)."""
    return {"times": valid["exact_times"]} if valid.get("exact_times") else {}


def _order_upsert(integration: Integration, external_id: str, valid: dict, version: int, actor: Actor) -> Upserted:
    before = Order.objects.filter(pk=external_id).values_list("status", flat=True).first()
    record, verdict = _claim(integration, "order", external_id, version, before is not None)
    if verdict != "apply":
        return _unchanged(verdict, record)
    option_pk = _order_option(
        integration,
        valid,
        _owned(integration, "customer", valid["customer_id"]),
        _owned(integration, "product", valid["items"][0]["product_id"]),
    )
    Order.objects.update_or_create(pk=external_id, defaults=_order_values(valid, option_pk))
    _record_version(integration, record, "order", external_id, version, _order_record_data(valid))
    order_synced_record([(external_id, before or "", valid["status"], version)], actor=actor)
    return Upserted(True, "", version)


_UPSERTS = {"customer": _customer_upsert, "product": _product_upsert, "order": _order_upsert}


def _line_read(line: str) -> tuple[str, str, dict]:
    """(kind, external id, the PUT body) of one JSONL line, or InvalidInput."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput({"line": [f"JSON이 아닙니다: {exc.msg}"]}) from None
    if not isinstance(obj, dict) or obj.get("type") not in SCHEMAS:
        raise InvalidInput({"type": ["customer, product, order 중 하나여야 합니다."]})
    kind = obj.pop("type")
    external_id = str(obj.pop(f"{kind}_id", "") or "")
    return kind, external_id, obj


def shop_import_line(*, integration: Integration, line: str, actor: Actor) -> Upserted:
    """One JSONL line: {"type": "customer"|"product"|"order", "<type>_id": ..., ...the PUT body}."""
    kind, external_id, obj = _line_read(line)
    return shop_upsert(integration=integration, kind=kind, external_id=external_id, data=obj, actor=actor)


def shop_import_batch(
    *, integration: Integration, lines: Sequence[str], actor: Actor, chunk_size: int = IMPORT_CHUNK_SIZE
) -> list[ImportResult]:
    """Many JSONL lines with the outcome `shop_import_line` gives each, in order: its Upserted, or the
    DomainError it would raise (nothing of that line stored). A later line sees what earlier lines wrote (a
    customer, then its orders), across chunks too.

    Each chunk of `chunk_size` lines is one transaction: every line validated first (the same serializers),
    the chunk's sync records locked and object existence read in one query each, the version and ownership
    rules applied line by line in memory, then customers, orders and sync records written in bulk — a
    constant number of queries per chunk. Products (few; their options need the per-object mapping) go
    through the single-object path inside the chunk. The durable records are the line path's: the objects
    and their SyncRecords, and one OrderEvent (SYNCED: status before → after, version) per applied order
    version; no outbox event (the shop already knows its own changes). A database error the fast
    path cannot reason about (a concurrent writer created the same object first, a deadlock) rolls the
    chunk back and does it again line by line, so correctness never rests on the fast path."""
    results: list[ImportResult] = []
    fallbacks = 0
    for start in range(0, len(lines), max(1, chunk_size)):
        chunk = lines[start : start + max(1, chunk_size)]
        outcome = _import_chunk(integration, chunk, actor)
        if outcome is None:
            fallbacks += 1
            outcome = _import_by_line(integration, chunk, actor)
        results.extend(outcome)
    log.info(
        "shop_import.batch integration=%s lines=%d applied=%d errors=%d fallback_chunks=%d actor=%s",
        integration.name,
        len(lines),
        sum(1 for r in results if isinstance(r, Upserted) and r.applied),
        sum(1 for r in results if isinstance(r, DomainError)),
        fallbacks,
        actor.type,
    )
    return results


def _import_by_line(integration: Integration, lines: Sequence[str], actor: Actor) -> list[ImportResult]:
    results: list[ImportResult] = []
    for line in lines:
        try:
            results.append(shop_import_line(integration=integration, line=line, actor=actor))
        except DomainError as exc:
            results.append(exc)
    return results


@dataclass(frozen=True)
class _Line:
    kind: str
    external_id: str
    valid: dict


def _line_validated(integration: Integration, line: str, schemas: dict[str, Serializer]) -> _Line:
    """What `shop_import_line` checks before touching the database, in the same order."""
    kind, external_id, obj = _line_read(line)
    integration_require_scope(integration, Integration.Scope.CATALOG_WRITE)
    return _Line(kind, external_id, _validated(kind, external_id, obj, schemas[kind]))


def _import_chunk(integration: Integration, lines: Sequence[str], actor: Actor) -> list[ImportResult] | None:
    """The chunk in one transaction, or None when the database refused it (then nothing of it is stored)."""
    schemas = {kind: schema() for kind, schema in SCHEMAS.items()}
    parsed: list[_Line | DomainError] = []
    for line in lines:
        try:
            parsed.append(_line_validated(integration, line, schemas))
        except DomainError as exc:
            parsed.append(exc)
    try:
        with transaction.atomic():
            return _ChunkWriter(integration, [p for p in parsed if isinstance(p, _Line)], actor).apply(parsed)
    except (IntegrityError, OperationalError) as exc:
        log.warning("shop_import.chunk_fallback lines=%d error=%s", len(lines), type(exc).__name__)
        return None


class _ChunkWriter:
    """One chunk's sync records (locked) and existing objects, the line-by-line verdicts in memory, and the
    bulk writes at the end. Only for use inside the chunk's transaction."""

    def __init__(self, integration: Integration, lines: list[_Line], actor: Actor) -> None:
        self.integration = integration
        self.actor = actor
        line_ids: dict[str, set[str]] = {kind: set() for kind in SCHEMAS}
        wanted: dict[str, set[str]] = {kind: set() for kind in SCHEMAS}
        for line in lines:
            line_ids[line.kind].add(line.external_id)
            wanted[line.kind].add(line.external_id)
            if line.kind == "order":
                wanted["customer"].add(line.valid["customer_id"])
                wanted["product"].add(line.valid["items"][0]["product_id"])
        queries = [Q(kind=kind, external_id__in=sorted(ids)) for kind, ids in wanted.items() if ids]
        self.records: dict[tuple[str, str], SyncRecord] = {}
        if queries:
            # Locked in primary-key order, so two importers never wait for each other in a cycle.
            locked = SyncRecord.objects.select_for_update().filter(reduce(operator.or_, queries)).order_by("pk")
            self.records = {(r.kind, r.external_id): r for r in locked}
        # Orders with their status now: the audit row says what the shop changed it from.
        self.order_status: dict[str, str] = (
            dict(Order.objects.filter(pk__in=sorted(line_ids["order"])).values_list("pk", "status"))
            if line_ids["order"]
            else {}
        )
        self.exists = {
            "customer": self._existing(Customer, line_ids["customer"]),
            "order": set(self.order_status),
        }
        self.synced: list[tuple[str, str, str, int]] = []
        self.customers: dict[str, Customer] = {}
        self.orders: dict[str, Order] = {}
        self.created: dict[tuple[str, str], SyncRecord] = {}
        self.changed: dict[tuple[str, str], SyncRecord] = {}

    @staticmethod
    def _existing(model, ids: set[str]) -> set[str]:
        return set(model.objects.filter(pk__in=sorted(ids)).values_list("pk", flat=True)) if ids else set()

    def apply(self, parsed: list[_Line | DomainError]) -> list[ImportResult]:
        results: list[ImportResult] = []
        for item in parsed:
            if isinstance(item, DomainError):
                results.append(item)
                continue
            try:
                results.append(self._line(item))
            except DomainError as exc:
                results.append(exc)
        self._write()
        return results

    def _line(self, line: _Line) -> Upserted:
        version = line.valid["version"]
        if line.kind == "product":
            with transaction.atomic():  # a savepoint: a refused product leaves nothing behind
                result = _product_upsert(self.integration, line.external_id, line.valid, version, self.actor)
            if result.applied:  # its option mapping, for the orders after it
                self.records[("product", line.external_id)] = SyncRecord.objects.get(
                    kind="product", external_id=line.external_id
                )
            return result
        record = self.records.get((line.kind, line.external_id))
        exists = line.external_id in self.exists[line.kind]
        verdict = _verdict(self.integration, record, line.external_id, version, exists)
        if verdict != "apply":
            return _unchanged(verdict, record)
        if line.kind == "customer":
            self.customers[line.external_id] = Customer(pk=line.external_id, **_customer_values(line.valid))
            self._stage_record(line, record, _customer_record_data(line.valid))
        else:
            option_pk = _order_option(
                self.integration,
                line.valid,
                self.records.get(("customer", line.valid["customer_id"])),
                self.records.get(("product", line.valid["items"][0]["product_id"])),
            )
            self.orders[line.external_id] = Order(pk=line.external_id, **_order_values(line.valid, option_pk))
            status = line.valid["status"]
            self.synced.append((line.external_id, self.order_status.get(line.external_id, ""), status, version))
            self.order_status[line.external_id] = status
            self._stage_record(line, record, _order_record_data(line.valid))
        self.exists[line.kind].add(line.external_id)
        return Upserted(True, "", version)

    def _stage_record(self, line: _Line, record: SyncRecord | None, data: dict | None) -> None:
        """`_record_version` in memory: written by `_write`."""
        key = (line.kind, line.external_id)
        version = line.valid["version"]
        if record is None:
            record = SyncRecord(
                integration=self.integration,
                kind=line.kind,
                external_id=line.external_id,
                version=version,
                data=data or {},
            )
            self.records[key] = self.created[key] = record
            return
        record.version = version
        if data is not None:
            record.data = data
        if record.pk is not None:
            self.changed[key] = record

    def _write(self) -> None:
        # update_or_create for many rows: insert, or update the named fields of the row already there.
        if self.customers:
            Customer.objects.bulk_create(
                self.customers.values(), update_conflicts=True, unique_fields=["pk"], update_fields=CUSTOMER_FIELDS
            )
        if self.orders:
            Order.objects.bulk_create(
                self.orders.values(), update_conflicts=True, unique_fields=["pk"], update_fields=ORDER_FIELDS
            )
        if self.synced:
            order_synced_record(self.synced, actor=self.actor)
        # New records are plain inserts: a concurrent writer's record for the same object is an
        # IntegrityError (the chunk is then done line by line), never silently taken over.
        if self.created:
            SyncRecord.objects.bulk_create(self.created.values())
        # Records already there are locked by this transaction: the conflict branch always runs, making
        # this one multi-row UPDATE (auto_now sets updated_at as for save()).
        if self.changed:
            SyncRecord.objects.bulk_create(
                self.changed.values(),
                update_conflicts=True,
                unique_fields=["pk"],
                update_fields=["version", "data", "updated_at"],
            )


# --- events out -----------------------------------------------------------------------------------


def order_owner(order_id: str | None) -> Integration | None:
    if not order_id:
        return None
    record = SyncRecord.objects.filter(kind="order", external_id=order_id).select_related("integration").first()
    return record.integration if record else None


def order_executor(order_id: str) -> ShopExecutor | None:
    """The actions executor hook: the shop that owns the order moves its money, also while its connection is
    paused (then the request waits for it: its event is held, see `webhook_attempt`)."""
    owner = order_owner(order_id)
    return ShopExecutor(name=owner.name, paused=not owner.active) if owner is not None else None


def _customer_owner(customer_id: str | None) -> Integration | None:
    if not customer_id:
        return None
    record = SyncRecord.objects.filter(kind="customer", external_id=customer_id).select_related("integration").first()
    return record.integration if record else None


def customer_shop_notifies(customer_id: str) -> bool:
    """The tickets hook: a customer a connected shop sent is told of an answer by that shop (it gets
    `ticket.replied`), so the desk does not e-mail them as well."""
    return SyncRecord.objects.filter(kind="customer", external_id=customer_id).exists()


def shop_event_route(message: OutboxMessage) -> str:
    """The outbox handler for `shop.event`: the event goes to the integration that owns the order (or the
    customer); it becomes a ShopEvent (the feed) and, with a webhook URL, a delivery. Events about the
    desk's own demo data go nowhere. An integration that is paused gets its events all the same: its feed
    answers again once its key is accepted again, and its deliveries wait (HELD, `webhook_attempt`) until it
    is active (`integration_update`, or the sweep's `webhooks_release_held`). Idempotent: the event id is the
    outbox row's."""
    payload = message.payload
    data = payload.get("data") or {}
    owner = order_owner(data.get("order_id")) or _customer_owner(data.get("customer_id"))
    key = message.dedupe_key.split(":", 1)[1]
    with transaction.atomic():
        if owner is not None:
            event, created = ShopEvent.objects.get_or_create(
                event_id=f"evt_{message.pk}",
                defaults={
                    "integration": owner,
                    "type": payload["type"],
                    "data": data,
                    "created_at": datetime.fromisoformat(payload["created_at"]),
                },
            )
            if owner.webhook_url:
                outbox_enqueue(topic=WEBHOOK_TOPIC, key=event.event_id, payload={"shop_event_id": event.pk})
        outbox_done(topic=SHOP_EVENT_TOPIC, key=key)
    return "routed" if owner is not None else "unrouted"


def event_body(event: ShopEvent) -> bytes:
    return json.dumps(
        {"id": event.event_id, "type": event.type, "created_at": event.created_at.isoformat(), "data": event.data},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def webhook_attempt(*, outbox_id: int) -> str:
    """POST one event to its integration's webhook, signed. 2xx → the delivery is DONE; anything else → the
    outbox retries with backoff and jitter (DEAD after CS_WEBHOOK_MAX_ATTEMPTS): a redirect (`http_302`, never
    followed) and a URL that is or resolves to an internal address (`target_forbidden`, nothing sent; see
    integration.outbound) included. While the integration is paused nothing is sent: the delivery is HELD, not
    failed, until the integration is active again. Idempotent: a finished delivery is not sent again (receivers
    still dedupe on X-CS-Event-Id: delivery is at least once)."""
    message = OutboxMessage.objects.filter(pk=outbox_id, topic=WEBHOOK_TOPIC).first()
    finished = (OutboxMessage.Status.DONE, OutboxMessage.Status.DEAD, OutboxMessage.Status.HELD)
    if message is None or message.status in finished:  # HELD: only after its release (PENDING again)
        return "skipped"
    event = ShopEvent.objects.select_related("integration").filter(pk=message.payload["shop_event_id"]).first()
    key = message.dedupe_key.split(":", 1)[1]
    if event is None or not event.integration.webhook_url:
        outbox_done(topic=WEBHOOK_TOPIC, key=key)
        return "skipped"
    if not event.integration.active and _held_while_paused(event.integration_id, outbox_id):
        log.info("webhook.held event_id=%s integration=%s", event.event_id, event.integration.name)
        return "held"
    body = event_body(event)
    header = policy.signature_header(integration_signing_secret(event.integration), body, t=int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "cs-desk-webhook/1",
        "X-CS-Event-Id": event.event_id,
        "X-CS-Event-Type": event.type,
        "X-CS-Signature": header,
    }
    try:
        status = webhook_post(
            event.integration.webhook_url,
            body,
            headers,
            timeout=float(settings.CS_WEBHOOK_TIMEOUT_S),
            allow_private=bool(settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS),
        )
    except TargetForbidden:
        outbox_defer(message_id=outbox_id, error=TargetForbidden.code)
        log.warning("webhook.refused event_id=%s error=%s", event.event_id, TargetForbidden.code)
        return "failed"
    except (OSError, ValueError, http.client.HTTPException) as exc:
        outbox_defer(message_id=outbox_id, error=type(exc).__name__)
        log.warning("webhook.failed event_id=%s error=%s", event.event_id, type(exc).__name__)
        return "failed"
    if policy.webhook_success(status):
        outbox_done(topic=WEBHOOK_TOPIC, key=key)
        log.info("webhook.delivered event_id=%s type=%s status=%d", event.event_id, event.type, status)
        return "delivered"
    outbox_defer(message_id=outbox_id, error=f"http_{status}")
    log.warning("webhook.failed event_id=%s status=%d", event.event_id, status)
    return "failed"


INTEGRATION_PAUSED = "integration_paused"


def _held_while_paused(integration_id: int, outbox_id: int) -> bool:
    """Put the delivery aside if its integration is paused. Under the integration's row lock, which
    `integration_update` also takes: a reactivation either sees this row HELD (and releases it) or happened
    first (and the delivery goes out now)."""
    with transaction.atomic():
        integration = Integration.objects.select_for_update().get(pk=integration_id)
        return not integration.active and outbox_hold(message_id=outbox_id, reason=INTEGRATION_PAUSED)


def _held_deliveries(integration_ids: Sequence[int] | None = None) -> list[int]:
    """The HELD webhook deliveries of these integrations (all active ones when None). Held rows are few: the
    (topic, status) index finds them, and their events are matched by id."""
    held = dict(
        OutboxMessage.objects.filter(topic=WEBHOOK_TOPIC, status=OutboxMessage.Status.HELD).values_list(
            "pk", "payload__shop_event_id"
        )
    )
    if not held:
        return []
    events = ShopEvent.objects.filter(pk__in=set(held.values()))
    events = (
        events.filter(integration_id__in=integration_ids)
        if integration_ids is not None
        else events.filter(integration__active=True)
    )
    wanted = set(events.values_list("pk", flat=True))
    return [pk for pk, event_pk in held.items() if event_pk in wanted]


def webhooks_release_held() -> int:
    """The sweep's part: deliveries held for integrations that are active again however that happened (the
    admin releases them at once through `integration_update`; this catches any other way back)."""
    with transaction.atomic():
        return outbox_release(message_ids=_held_deliveries())


def webhook_replay(*, event: ShopEvent, actor: Actor) -> OutboxMessage:
    """Send again from the start (attempts reset): the admin's replay of a DEAD (or any) delivery."""
    message = outbox_request(topic=WEBHOOK_TOPIC, key=event.event_id, payload={"shop_event_id": event.pk})
    log.info("webhook.replay event_id=%s actor=%s", event.event_id, actor.type)
    return message


def event_list(*, integration: Integration, after: str | None, limit: int) -> list[ShopEvent]:
    integration_require_scope(integration, Integration.Scope.EVENTS_READ)
    queryset = ShopEvent.objects.filter(integration=integration)
    if after:
        cursor = ShopEvent.objects.filter(integration=integration, event_id=after).values_list("pk", flat=True).first()
        if cursor is None:
            raise NotFound(f"이벤트 '{after}'을(를) 찾을 수 없습니다.")
        queryset = queryset.filter(pk__gt=cursor)
    return list(queryset.order_by("pk")[:limit])


# --- results in -----------------------------------------------------------------------------------


def action_result_report(
    *, integration: Integration, action_id: str, ok: bool, external_ref: str, amount=None, message: str = ""
) -> tuple[ActionRecord, bool]:
    """The shop's report on a refund/cancel it carried out. Only for orders this integration owns."""
    integration_require_scope(integration, Integration.Scope.ACTIONS_REPORT)
    pk = parse_canonical_number("A", action_id)  # A00012 only: not A12, 12 or a00012
    order_id = ActionRecord.objects.filter(pk=pk).values_list("order_id", flat=True).first() if pk else None
    if order_id is None or _owned(integration, "order", order_id) is None:
        raise NotFound(f"처리번호 '{action_id}'을(를) 찾을 수 없습니다.")
    return action_result_record(
        number=action_id,
        ok=ok,
        external_ref=external_ref,
        amount=amount,
        message=message,
        actor=Actor.system(f"shop:{integration.name}"),
    )


def origin_allowed_for(integration_name: str, origin: str) -> bool:
    integration = Integration.objects.filter(name=str(integration_name), active=True).first()
    return integration is not None and policy.origin_allowed(origin, integration.allowed_origins)


def origin_allowed_anywhere(origin: str) -> bool:
    return any(
        policy.origin_allowed(origin, origins)
        for origins in Integration.objects.filter(active=True).values_list("allowed_origins", flat=True)
    )


# --- customers arrive signed in -------------------------------------------------------------------

# Tokens from a shop's signed session carry "integration:<pk>" (accounts/issuers.py): they are accepted only while
# that integration is active, and again once it is reactivated.
TOKEN_ISSUER = "integration"
SHOP_PAUSED_CODE = "shop_paused"
SHOP_PAUSED_MESSAGE = "이 쇼핑몰의 상담 연결이 잠시 중지되었습니다. 쇼핑몰에서 다시 접속해 주세요."


def integration_vouches(reference: str) -> bool:
    """The token check registered for TOKEN_ISSUER: the integration exists and is active (one indexed query)."""
    return (
        reference.isascii()
        and reference.isdigit()
        and Integration.objects.filter(pk=int(reference), active=True).exists()
    )


def shop_session_open(*, integration_name: str, customer_id: str, expires_at: int, signature: str):
    """Exchange a shop-signed (customer_id, expires_at) for a customer token. Refused: an unknown or inactive
    integration, a wrong signature, an expiry in the past or too far ahead, a signature already used, a
    customer this integration does not own. Returns (AuthToken, key)."""
    integration = Integration.objects.filter(name=integration_name, active=True).first()
    refused = PermissionDenied("쇼핑몰 로그인 정보를 확인할 수 없습니다.", code="shop_session_refused")
    if integration is None or not isinstance(signature, str):
        raise refused
    secret = integration_signing_secret(integration)
    if not policy.session_signature_ok(secret, customer_id, expires_at, signature):
        raise refused
    now = int(time.time())
    if expires_at <= now or expires_at > now + int(settings.CS_SHOP_SESSION_MAX_AHEAD_S):
        raise refused
    if _owned(integration, "customer", customer_id) is None:
        raise refused
    with transaction.atomic():
        ShopSessionUse.objects.filter(expires_at__lt=timezone.now()).delete()
        try:
            with transaction.atomic():
                ShopSessionUse.objects.create(
                    integration=integration,
                    signature=signature.lower(),
                    expires_at=datetime.fromtimestamp(expires_at, tz=UTC),
                )
        except IntegrityError:
            raise refused from None
        customer = Customer.objects.select_for_update().get(pk=customer_id)
        if customer.user is None:
            User = get_user_model()
            user, _ = User.objects.get_or_create(username=f"shop-{integration.pk}-{customer_id}")
            user.set_unusable_password()
            user.save()
            customer.user = user
            customer.save(update_fields=["user"])
        token, key = token_issue(user=customer.user, actor=customer.user, issuer=f"{TOKEN_ISSUER}:{integration.pk}")
    log.info("shop_session.opened integration=%s", integration.name)
    return token, key

"""The shop's JSONL import: one line through the single-object path (`sync.shop_upsert`), or many lines in
chunks with the same rules applied in memory and the writes done in bulk."""

from __future__ import annotations

import json
import logging
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Q
from rest_framework.serializers import Serializer

from common.actors import Actor
from common.errors import DomainError
from integration.errors import InvalidInput
from integration.models import Integration, SyncRecord
from integration.schemas import SCHEMAS
from integration.services.access import integration_require_scope
from integration.services.sync import (
    CUSTOMER_FIELDS,
    ORDER_FIELDS,
    Upserted,
    customer_record_data,
    customer_values,
    object_validated,
    order_option,
    order_record_data,
    order_values,
    product_upsert,
    shop_upsert,
    upsert_unchanged,
    write_verdict,
)
from orders.models import Customer, Order
from orders.services import order_synced_record

log = logging.getLogger(__name__)


# What one import line comes to: its result, or the error the line path would have raised for it.
ImportResult = Upserted | DomainError

IMPORT_CHUNK_SIZE = 1000


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
    return _Line(kind, external_id, object_validated(kind, external_id, obj, schemas[kind]))


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
                result = product_upsert(self.integration, line.external_id, line.valid, version, self.actor)
            if result.applied:  # its option mapping, for the orders after it
                self.records[("product", line.external_id)] = SyncRecord.objects.get(
                    kind="product", external_id=line.external_id
                )
            return result
        record = self.records.get((line.kind, line.external_id))
        exists = line.external_id in self.exists[line.kind]
        verdict = write_verdict(self.integration, record, line.external_id, version, exists)
        if verdict != "apply":
            return upsert_unchanged(verdict, record)
        if line.kind == "customer":
            self.customers[line.external_id] = Customer(pk=line.external_id, **customer_values(line.valid))
            self._stage_record(line, record, customer_record_data(line.valid))
        else:
            option_pk = order_option(
                self.integration,
                line.valid,
                self.records.get(("customer", line.valid["customer_id"])),
                self.records.get(("product", line.valid["items"][0]["product_id"])),
            )
            self.orders[line.external_id] = Order(pk=line.external_id, **order_values(line.valid, option_pk))
            status = line.valid["status"]
            self.synced.append((line.external_id, self.order_status.get(line.external_id, ""), status, version))
            self.order_status[line.external_id] = status
            self._stage_record(line, record, order_record_data(line.valid))
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

"""The batched import (`shop_import_batch`, what `import_shop` runs) against the line path
(`shop_import_line`): the same lines give the same per-line outcomes and leave the same rows, at any chunk size;
a chunk costs a constant number of queries; a chunk the database refuses is done again line by line."""

from __future__ import annotations

import json
import logging
import threading
from contextlib import contextmanager
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext

from common.actors import Actor
from common.errors import DomainError
from integration.errors import InvalidInput
from integration.models import SyncRecord
from integration.services import imports
from integration.services.imports import shop_import_batch, shop_import_line
from integration.services.sync import Upserted, shop_upsert
from integration.tests.factories import customer_body, make_integration, order_body, product_body
from orders.models import Customer, Order, OrderEvent, Product, ProductOption

pytestmark = pytest.mark.django_db

ACTOR = Actor.system("test")


def line(kind: str, external_id: str, body: dict) -> str:
    return json.dumps({"type": kind, f"{kind}_id": external_id, **body}, ensure_ascii=False)


def order(external_id: str, version: int = 1, *, customer: str = "S900", option: str = "O1", **over) -> str:
    items = [{"product_id": "P900", "option_id": option, "quantity": 1, "unit_price": "59000"}]
    return line("order", external_id, order_body(version, customer_id=customer, items=items, **over))


def outcome(result: Upserted | DomainError) -> tuple:
    """A comparable form: the Upserted, or the error's class, code, message and field errors."""
    if isinstance(result, Upserted):
        return ("ok", result.applied, result.reason, result.version)
    fields = json.dumps(result.fields, ensure_ascii=False, sort_keys=True) if isinstance(result, InvalidInput) else ""
    return (type(result).__name__, result.code, result.message, fields)


def by_line(integration, lines: list[str]) -> list[tuple]:
    results = []
    for text in lines:
        try:
            results.append(outcome(shop_import_line(integration=integration, line=text, actor=ACTOR)))
        except DomainError as exc:
            results.append(outcome(exc))
    return results


def by_batch(integration, lines: list[str], chunk_size: int) -> list[tuple]:
    results = shop_import_batch(integration=integration, lines=lines, actor=ACTOR, chunk_size=chunk_size)
    assert len(results) == len(lines)
    return [outcome(r) for r in results]


def snapshot() -> dict:
    """Every row an import can touch, without database-assigned ids (those differ between two runs)."""
    labels = dict(ProductOption.objects.values_list("pk", "label"))

    def record_data(record: SyncRecord) -> dict:
        if record.kind != "product":
            return record.data
        return {"options": {oid: labels.get(pk) for oid, pk in record.data.get("options", {}).items()}}

    return {
        "customers": list(Customer.objects.order_by("pk").values_list("pk", "name", "phone", "email", "user")),
        "products": list(Product.objects.order_by("pk").values_list("pk", "name", "price")),
        "options": sorted(ProductOption.objects.values_list("product_id", "label", "stock")),
        # Every column of an order, its option by label.
        "orders": list(
            Order.objects.order_by("pk").values_list(
                *("option__label" if f.attname == "option_id" else f.attname for f in Order._meta.concrete_fields)
            )
        ),
        "records": sorted(
            (r.integration.name, r.kind, r.external_id, r.version, json.dumps(record_data(r), sort_keys=True))
            for r in SyncRecord.objects.select_related("integration")
        ),
        # The audit rows: one SYNCED per applied order version, saying what the status was and became.
        "order_events": sorted(
            (
                e.order_id,
                e.type,
                e.payload.get("before"),
                e.payload.get("after"),
                e.payload.get("version"),
                e.actor_type,
            )
            for e in OrderEvent.objects.all()
        ),
    }


class _Undo(Exception):
    pass


@contextmanager
def undone():
    """Run the block, then roll everything it wrote back (a savepoint inside the test's transaction)."""
    try:
        with transaction.atomic():
            yield
            raise _Undo
    except _Undo:
        pass


@pytest.fixture
def fast_path_only(monkeypatch):
    """The batch may not quietly fall back to the line path: a comparison would then prove nothing."""

    def refuse(*args, **kwargs):
        raise AssertionError("the batch fell back to the line path")

    monkeypatch.setattr(imports, "_import_by_line", refuse)


@pytest.fixture
def world():
    """`myshop` imports; `other` already owns S800/P800/one order; the desk has its own D001/DP1/one order."""
    mine = make_integration("myshop").integration
    other = make_integration("other").integration
    shop_upsert(integration=other, kind="customer", external_id="S800", data=customer_body(), actor=ACTOR)
    shop_upsert(integration=other, kind="product", external_id="P800", data=product_body(), actor=ACTOR)
    items = [{"product_id": "P800", "option_id": "O1", "quantity": 1, "unit_price": "59000"}]
    shop_upsert(
        integration=other,
        kind="order",
        external_id="HR20260725800",
        data=order_body(customer_id="S800", items=items),
        actor=ACTOR,
    )
    desk = Customer.objects.create(pk="D001", name="데스크 고객")
    product = Product.objects.create(pk="DP1", name="데스크 상품", price=1000)
    option = ProductOption.objects.create(product=product, label="기본", stock=1)
    Order.objects.create(
        pk="HR20260725700",
        customer=desk,
        product=product,
        option=option,
        amount=1000,
        shipping_address="서울",
        ordered_at="2026-07-01",
    )
    return mine


# Every rule of the line path, with lines that depend on earlier lines of the same file.
MIXED = [
    line("customer", "S900", customer_body()),  # new
    line("product", "P900", product_body()),  # new (O1 → 250, O2 → 260)
    order("HR20260725901"),  # needs the two lines above
    order("HR20260725902", customer="S999"),  # a customer never sent
    order("HR20260725903", amount="oops"),  # refused whole by the serializer
    "not json",
    json.dumps({"type": "coupon"}),
    line("customer", "S900", customer_body(name="같은 버전")),  # same version: no-op
    line("customer", "S900", customer_body(3, name="새 이름", email="new@example.com")),  # newer
    line("customer", "S900", customer_body(2, name="오래된 이름")),  # stale
    order("HR20260725901", 2, status="RETURNED"),  # newer
    order("HR20260725901", 1, customer="S999"),  # stale wins over the bad reference
    line("customer", "D001", customer_body(name="탈취")),  # the desk's own customer
    line("product", "DP1", product_body()),  # the desk's own product
    order("HR20260725700"),  # the desk's own order
    line("customer", "S800", customer_body(9, name="탈취")),  # another integration's customer
    line("product", "P800", product_body(9)),  # another integration's product
    order("HR20260725800", 9),  # another integration's order
    order("HR20260725904", customer="S800"),  # referencing another integration's customer
    order("HR20260725905", option="O9"),  # an option the product does not have
    order("HR20260725906", customer="S901"),  # its customer comes two lines later
    line("customer", "S901", customer_body(name="나중 고객")),
    order("HR20260725907", customer="S901"),  # …and now it is there
    line("order", "HR12", order_body()),  # an id of the wrong form
    order("HR20260725908"),
    order("HR20260725908", 2, shipping_address="두 번째 주소"),  # the same object twice in one chunk
    line(
        "product",
        "P900",
        product_body(
            2, options=[{"option_id": "O1", "name": "250", "stock": 9}, {"option_id": "O3", "name": "270", "stock": 1}]
        ),
    ),
    order("HR20260725909", option="O3"),  # an option added by the line above
    order("HR20260725908", 2, shipping_address="세 번째 주소"),  # replayed: same version
]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 1000])
def test_the_batch_gives_each_line_the_line_paths_outcome_and_leaves_the_same_rows(world, chunk_size, fast_path_only):
    with undone():
        expected = by_line(world, MIXED)
        expected_rows = snapshot()
    with undone():
        got = by_batch(world, MIXED, chunk_size)
        got_rows = snapshot()
    for number, (want, have) in enumerate(zip(expected, got, strict=True), 1):
        assert have == want, f"line {number}: {MIXED[number - 1][:60]}"
    assert got_rows == expected_rows
    # And what that outcome is (so that both paths being wrong the same way would fail too).
    kinds = [o[0] if o[0] != "ok" else ("applied" if o[1] else o[2]) for o in got]
    assert kinds == [
        "applied", "applied", "applied", "MissingReference", "InvalidInput", "InvalidInput", "InvalidInput",
        "same_version", "applied", "stale", "applied", "stale",
        "NotOwned", "NotOwned", "NotOwned", "NotOwned", "NotOwned", "NotOwned",
        "MissingReference", "MissingReference", "MissingReference", "applied", "applied", "InvalidInput",
        "applied", "applied", "applied", "applied", "same_version",
    ]  # fmt: skip
    orders = {o[0]: o for o in got_rows["orders"]}
    assert orders["HR20260725901"][6] == "RETURNED" and orders["HR20260725908"][7] == "두 번째 주소"
    assert orders["HR20260725909"][3] == "270" and "HR20260725906" not in orders
    assert ("S900", "새 이름", "010-1234-5678", "new@example.com", None) in got_rows["customers"]
    assert ("D001", "데스크 고객", "", "", None) in got_rows["customers"]
    history = [e[2:5] for e in got_rows["order_events"] if e[0] == "HR20260725901"]
    assert sorted(history) == [("", "DELIVERED", 1), ("DELIVERED", "RETURNED", 2)]
    assert {e[1] for e in got_rows["order_events"]} == {"SYNCED"}
    # Refused lines leave no audit row: the desk's own order has none, another shop's only its own (version 1).
    assert not [e for e in got_rows["order_events"] if e[0] == "HR20260725700"]
    assert [e[4] for e in got_rows["order_events"] if e[0] == "HR20260725800"] == [1]


def test_a_bad_line_stores_nothing_and_a_later_chunk_sees_an_earlier_chunks_rows(world, fast_path_only):
    lines = [
        line("customer", "S900", customer_body()),
        line("product", "P900", product_body()),
        order("HR20260725901", amount="-1"),
        order("HR20260725902", option="O9"),
        order("HR20260725903"),
    ]
    results = shop_import_batch(integration=world, lines=lines, actor=ACTOR, chunk_size=2)
    assert [type(r).__name__ for r in results] == [
        "Upserted",
        "Upserted",
        "InvalidInput",
        "MissingReference",
        "Upserted",
    ]
    assert list(Order.objects.filter(pk__startswith="HR202607259").values_list("pk", flat=True)) == ["HR20260725903"]
    assert not SyncRecord.objects.filter(external_id__in=["HR20260725901", "HR20260725902"]).exists()
    assert SyncRecord.objects.get(kind="order", external_id="HR20260725903").integration == world


def test_a_reimport_changes_nothing_and_a_newer_file_updates_rows_and_records(world, fast_path_only):
    lines = [line("customer", "S900", customer_body()), line("product", "P900", product_body())]
    lines += [order(f"HR2026072590{i}") for i in range(5)]
    assert all(r.applied for r in shop_import_batch(integration=world, lines=lines, actor=ACTOR, chunk_size=3))
    again = shop_import_batch(integration=world, lines=lines, actor=ACTOR, chunk_size=3)
    assert {(r.applied, r.reason) for r in again} == {(False, "same_version")}
    newer = [order(f"HR2026072590{i}", 2, status="PREPARING", delivered_at=None) for i in range(5)]
    assert all(r.applied for r in shop_import_batch(integration=world, lines=newer, actor=ACTOR, chunk_size=3))
    assert set(Order.objects.filter(pk__startswith="HR202607259").values_list("status", flat=True)) == {"PREPARING"}
    records = SyncRecord.objects.filter(kind="order", external_id__startswith="HR202607259")
    assert set(records.values_list("version", flat=True)) == {2} and records.count() == 5
    stale = shop_import_batch(integration=world, lines=lines[2:], actor=ACTOR, chunk_size=3)
    assert {(r.applied, r.reason, r.version) for r in stale} == {(False, "stale", 2)}


def test_a_key_without_the_catalog_scope_is_refused_on_every_line_as_on_the_line_path(fast_path_only):
    integration = make_integration("readonly", scopes=["events:read"]).integration
    lines = [line("customer", "S900", customer_body()), "not json"]
    assert by_batch(integration, lines, 10) == by_line(integration, lines)
    assert by_batch(integration, lines, 10)[0][:2] == ("PermissionDenied", "permission_denied")
    assert not Customer.objects.filter(pk="S900").exists()


def _import_queries(integration, orders: int, tag: str) -> int:
    lines = [line("customer", f"Q{tag}", customer_body())]
    lines += [order(f"HR2026072{tag}{i:05d}", customer=f"Q{tag}") for i in range(orders)]
    with CaptureQueriesContext(connections["default"]) as queries:
        results = shop_import_batch(integration=integration, lines=lines, actor=ACTOR, chunk_size=10_000)
    assert all(r.applied for r in results) and Order.objects.filter(pk__startswith=f"HR2026072{tag}").count() == orders
    return len(queries)


@pytest.mark.parametrize(
    "small,large",
    [(5, 60), pytest.param(20, 1500, marks=pytest.mark.postgres)],  # SQLite splits inserts at 999 parameters
)
def test_a_chunk_costs_the_same_few_queries_whatever_its_number_of_orders(world, small, large, fast_path_only):
    shop_import_batch(integration=world, lines=[line("product", "P900", product_body())], actor=ACTOR)
    few = _import_queries(world, small, "1")
    many = _import_queries(world, large, "2")
    assert few == many <= 10  # lock records, two existence reads, three bulk writes (+ savepoint, release)
    # The line path: several queries per order.
    with CaptureQueriesContext(connections["default"]) as line_queries:
        by_line(world, [order("HR20260723000001", customer="Q1"), order("HR20260723000002", customer="Q1")])
    assert len(line_queries) >= 2 * 6


def test_import_shop_reports_lines_by_their_number_across_chunk_boundaries(world, tmp_path, monkeypatch):
    monkeypatch.setattr("integration.management.commands.import_shop.IMPORT_CHUNK_SIZE", 2)
    path = tmp_path / "shop.jsonl"
    rows = [
        line("customer", "S900", customer_body()),
        "",
        line("product", "P900", product_body()),
        order("HR20260725901"),
        order("HR20260725902", amount="oops"),
        line("customer", "D001", customer_body()),
        order("HR20260725903"),
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out, err = StringIO(), StringIO()
    with pytest.raises(Exception, match="2개 줄"):
        call_command("import_shop", str(path), "--integration", "myshop", "--no-progress", stdout=out, stderr=err)
    assert out.getvalue().strip() == "applied=4 unchanged=0 errors=2"
    assert err.getvalue().splitlines()[0].startswith("line 5: {'amount'")
    assert err.getvalue().splitlines()[1].startswith("line 6: not_owned D001")
    out = StringIO()
    path.write_text("\n".join(rows[:4]) + "\n", encoding="utf-8")
    call_command("import_shop", str(path), "--integration", "myshop", "--no-progress", stdout=out, stderr=StringIO())
    assert out.getvalue().strip() == "applied=0 unchanged=3 errors=0"


def test_a_chunk_the_database_refuses_is_rolled_back_and_done_line_by_line(world, monkeypatch, caplog):
    """Whatever the fast path had written is gone, and the lines get the line path's outcome."""
    original = imports._ChunkWriter._write

    def conflicting_write(self):
        original(self)
        SyncRecord.objects.create(integration=world, kind="customer", external_id="S900", version=1)  # a duplicate

    monkeypatch.setattr(imports._ChunkWriter, "_write", conflicting_write)
    lines = [line("customer", "S900", customer_body()), line("product", "P900", product_body()), order("HR20260725901")]
    caplog.set_level(logging.WARNING, logger="integration.services.imports")
    results = shop_import_batch(integration=world, lines=lines, actor=ACTOR)
    assert [r.applied for r in results] == [True, True, True]
    assert "shop_import.chunk_fallback" in caplog.text
    assert SyncRecord.objects.filter(kind="customer", external_id="S900").count() == 1
    assert Order.objects.get(pk="HR20260725901").customer_id == "S900"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_concurrent_writer_taking_an_object_first_wins_and_the_chunk_is_redone_line_by_line(monkeypatch, caplog):
    """Another integration's importer commits S900 between this chunk's reads and its writes: the chunk's
    insert of S900's record fails, nothing of the chunk stays, and line by line S900 is refused (not owned)
    while the rest of the chunk is applied."""
    mine = make_integration("myshop").integration
    other = make_integration("other").integration
    original = imports._ChunkWriter._write

    def other_importer_commits_first():
        try:
            shop_upsert(integration=other, kind="customer", external_id="S900", data=customer_body(), actor=ACTOR)
        finally:
            connections.close_all()

    def racing_write(self):
        thread = threading.Thread(target=other_importer_commits_first)
        thread.start()
        thread.join(timeout=30)
        original(self)

    monkeypatch.setattr(imports._ChunkWriter, "_write", racing_write)
    caplog.set_level(logging.WARNING, logger="integration.services.imports")
    lines = [
        line("customer", "S900", customer_body(name="내 고객")),
        line("customer", "S901", customer_body()),
        line("product", "P900", product_body()),
        order("HR20260725901", customer="S901"),
    ]
    results = shop_import_batch(integration=mine, lines=lines, actor=ACTOR)
    assert [outcome(r)[:2] for r in results] == [("NotOwned", "not_owned"), *[("ok", True)] * 3]
    assert "shop_import.chunk_fallback" in caplog.text
    assert Customer.objects.get(pk="S900").name == "김연동"
    assert SyncRecord.objects.get(kind="customer", external_id="S900").integration == other
    assert Order.objects.get(pk="HR20260725901").customer_id == "S901"

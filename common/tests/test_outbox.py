"""The transactional outbox: written with the change, handed over after commit, retried by the sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from common import outbox
from common.models import OutboxMessage

pytestmark = pytest.mark.django_db(transaction=True)

TOPIC = "test.thing_happened"


class Receiver:
    """A real handler: records what it was handed, or fails while `down` is set (a broker outage)."""

    def __init__(self) -> None:
        self.handed: list[dict] = []
        self.down = False

    def __call__(self, message: OutboxMessage) -> str:
        if self.down:
            raise ConnectionError("broker down")
        self.handed.append(message.payload)
        return "queued"


@pytest.fixture
def receiver(settings):
    settings.CS_OUTBOX_BACKOFF_BASE_S = 10
    settings.CS_OUTBOX_MAX_ATTEMPTS = 3
    receiver = Receiver()
    outbox.outbox_register(TOPIC, receiver)
    yield receiver
    outbox._registry.pop(TOPIC, None)


def _make_due() -> None:
    OutboxMessage.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def test_a_row_is_handed_over_only_after_its_transaction_commits(receiver):
    with transaction.atomic():
        outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
        assert receiver.handed == []  # not before the commit
    row = OutboxMessage.objects.get()
    assert receiver.handed == [{"id": 1}]
    assert (row.status, row.attempts, row.dispatched_at is not None) == ("DISPATCHED", 1, True)


def test_a_rolled_back_change_leaves_no_request_and_hands_nothing_over(receiver):
    with pytest.raises(RuntimeError), transaction.atomic():
        outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
        raise RuntimeError("the change failed")
    assert not OutboxMessage.objects.exists() and receiver.handed == []


def test_the_same_key_twice_is_one_request(receiver):
    for _ in range(2):
        with transaction.atomic():
            outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    assert OutboxMessage.objects.count() == 1 and receiver.handed == [{"id": 1}]


def test_broker_down_at_commit_keeps_the_row_pending_and_the_sweep_hands_it_over_later(receiver):
    receiver.down = True
    with transaction.atomic():  # the commit itself succeeds: the customer's change is stored
        outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    row = OutboxMessage.objects.get()
    assert (row.status, row.attempts, row.last_error) == ("PENDING", 1, "ConnectionError")
    assert row.next_attempt_at > timezone.now() + timedelta(seconds=4)  # backoff, not a hot loop

    assert outbox.outbox_sweep() == 0  # not due yet
    receiver.down = False
    _make_due()
    assert outbox.outbox_sweep() == 1
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_error) == ("DISPATCHED", 2, "")
    assert receiver.handed == [{"id": 1}]


def test_a_request_that_never_gets_through_ends_dead_after_the_attempt_limit(receiver):
    receiver.down = True
    with transaction.atomic():
        outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    for _ in range(2):
        _make_due()
        outbox.outbox_sweep()
    row = OutboxMessage.objects.get()
    assert (row.status, row.attempts) == ("DEAD", 3)
    _make_due()
    assert outbox.outbox_sweep() == 0  # DEAD rows wait for a person (or the owning app's sweep)


def test_done_is_final_and_a_new_request_reopens_the_row(receiver):
    with transaction.atomic():
        outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    assert outbox.outbox_done(topic=TOPIC, key="1") == 1
    assert OutboxMessage.objects.get().status == "DONE"
    assert outbox.outbox_done(topic=TOPIC, key="1") == 0

    outbox.outbox_request(topic=TOPIC, key="1", payload={"id": 1, "again": True})
    row = OutboxMessage.objects.get()
    assert (row.status, row.payload) == ("DISPATCHED", {"id": 1, "again": True})
    assert receiver.handed == [{"id": 1}, {"id": 1, "again": True}]


def test_a_topic_with_redelivery_gets_a_lost_dispatch_handed_over_again(receiver):
    outbox.outbox_register(TOPIC, receiver, redeliver_after_s=60)
    with transaction.atomic():
        outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    assert outbox.outbox_sweep() == 0  # dispatched a moment ago: still in the broker's hands
    OutboxMessage.objects.update(dispatched_at=timezone.now() - timedelta(seconds=61))
    assert outbox.outbox_sweep() == 1
    assert receiver.handed == [{"id": 1}, {"id": 1}]


def test_a_row_without_a_handler_is_kept_and_retried(receiver):
    with transaction.atomic():
        outbox.outbox_enqueue(topic="test.nobody_listens", key="1", payload={})
    row = OutboxMessage.objects.get()
    assert (row.status, row.last_error) == ("PENDING", "LookupError")


def test_the_purge_deletes_rows_finished_long_ago_and_keeps_the_rest(receiver, settings):
    """Retention: DONE rows older than CS_OUTBOX_RETENTION_DAYS go; recent DONE rows, and every PENDING,
    DISPATCHED or DEAD row, stay; so does a DONE row of a topic that keeps its record (a webhook's delivery)."""
    settings.CS_OUTBOX_RETENTION_DAYS = 30
    kept_topic = "test.delivery_record"
    outbox.outbox_register(kept_topic, receiver, keep_done=True)
    try:
        now = timezone.now()
        old, recent = now - timedelta(days=31), now - timedelta(days=29)
        rows = {
            "old done": (TOPIC, "DONE", old),
            "recent done": (TOPIC, "DONE", recent),
            "old dead": (TOPIC, "DEAD", old),
            "old pending": (TOPIC, "PENDING", None),
            "old kept": (kept_topic, "DONE", old),
        }
        for key, (topic, status, done_at) in rows.items():
            OutboxMessage.objects.create(
                topic=topic,
                dedupe_key=f"{topic}:{key}",
                status=status,
                done_at=done_at,
                next_attempt_at=now + timedelta(hours=1),
            )

        assert outbox.outbox_purge() == 1
        left = set(OutboxMessage.objects.values_list("dedupe_key", flat=True))
        assert left == {f"{t}:{k}" for k, (t, _, _) in rows.items() if k != "old done"}
        assert outbox.outbox_purge() == 0  # idempotent
    finally:
        outbox._registry.pop(kept_topic, None)


def test_the_purge_works_through_a_backlog_in_steps(receiver, settings):
    settings.CS_OUTBOX_RETENTION_DAYS = 1
    done_at = timezone.now() - timedelta(days=2)
    OutboxMessage.objects.bulk_create(
        OutboxMessage(topic=TOPIC, dedupe_key=f"{TOPIC}:{i}", status="DONE", done_at=done_at, next_attempt_at=done_at)
        for i in range(7)
    )
    assert [outbox.outbox_purge(limit=3) for _ in range(4)] == [3, 3, 1, 0]
    assert not OutboxMessage.objects.exists()


def test_a_held_row_waits_without_attempts_until_it_is_released(receiver):
    with transaction.atomic():
        row = outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    assert outbox.outbox_hold(message_id=row.pk, reason="target_paused")
    held = OutboxMessage.objects.get()
    assert (held.status, held.last_error) == ("HELD", "target_paused")
    _make_due()
    for _ in range(5):  # well past CS_OUTBOX_MAX_ATTEMPTS: waiting is no failed attempt
        assert outbox.outbox_sweep() == 0
    assert outbox.outbox_dispatch(row.pk).ok is False
    assert outbox.outbox_done(topic=TOPIC, key="1") == 0 and OutboxMessage.objects.get().status == "HELD"

    with transaction.atomic():
        assert outbox.outbox_release(message_ids=[row.pk]) == 1
        assert len(receiver.handed) == 1  # dispatched after the release commits, not before

    released = OutboxMessage.objects.get()
    assert receiver.handed == [{"id": 1}, {"id": 1}]
    assert (released.status, released.attempts, released.last_error) == ("DISPATCHED", 1, "")
    assert outbox.outbox_release(message_ids=[row.pk]) == 0  # only HELD rows are released


def test_only_an_open_row_is_held(receiver):
    with transaction.atomic():
        row = outbox.outbox_enqueue(topic=TOPIC, key="1", payload={"id": 1})
    outbox.outbox_done(topic=TOPIC, key="1")
    assert not outbox.outbox_hold(message_id=row.pk, reason="x")
    assert OutboxMessage.objects.get().status == "DONE"


def test_a_new_request_is_one_insert_and_a_repeated_key_one_more_read(receiver):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with transaction.atomic(), CaptureQueriesContext(connection) as first:
        created = outbox.outbox_enqueue(topic=TOPIC, key="9", payload={"id": 9, "이름": "값"})
    with transaction.atomic(), CaptureQueriesContext(connection) as again:
        same = outbox.outbox_enqueue(topic=TOPIC, key="9", payload={"id": 9})
    statements = [q["sql"].split()[0].upper() for q in first.captured_queries]
    assert [s for s in statements if s not in ("BEGIN", "COMMIT")] == ["INSERT"]
    assert [q["sql"].split()[0].upper() for q in again.captured_queries if "outbox" in q["sql"]] == ["INSERT", "SELECT"]
    row = OutboxMessage.objects.get()
    assert created.pk == same.pk == row.pk and row.payload == {"id": 9, "이름": "값"}
    assert (row.topic, row.status, row.attempts) == (TOPIC, "DISPATCHED", 1) and row.created_at is not None
    assert receiver.handed == [{"id": 9, "이름": "값"}]


INLINE = "test.inline_thing"


@pytest.fixture
def inline_receiver():
    receiver = Receiver()

    def handler(message: OutboxMessage) -> str:
        receiver(message)
        outbox.outbox_done(topic=INLINE, key=message.dedupe_key.split(":", 1)[1])
        return "done"

    outbox.outbox_register(INLINE, handler, inline=True)
    yield receiver
    outbox._registry.pop(INLINE, None)


def test_an_inline_handler_runs_in_the_enqueuing_transaction_and_nothing_is_dispatched_after(inline_receiver):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with pytest.raises(RuntimeError), transaction.atomic():
        outbox.outbox_enqueue(topic=INLINE, key="1", payload={"id": 1})
        assert inline_receiver.handed == [{"id": 1}]  # before the commit, in the transaction
        raise RuntimeError("the change failed")
    assert not OutboxMessage.objects.exists()  # its work went with the change
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        outbox.outbox_enqueue(topic=INLINE, key="2", payload={"id": 2})
    statements = [q["sql"].split()[0].upper() for q in captured.captured_queries]
    assert statements[-1] == "COMMIT", statements  # no claim, read or update after the commit
    row = OutboxMessage.objects.get()
    assert (row.status, row.attempts, row.done_at is not None) == ("DONE", 0, True)


def test_an_inline_handler_that_fails_leaves_the_row_to_the_dispatch_after_commit(inline_receiver):
    inline_receiver.down = True
    with transaction.atomic():
        outbox.outbox_enqueue(topic=INLINE, key="1", payload={"id": 1})
    row = OutboxMessage.objects.get()  # the row survived the handler's failure; the dispatch failed too
    assert (row.status, row.attempts, row.last_error) == ("PENDING", 1, "ConnectionError")
    inline_receiver.down = False
    _make_due()
    assert outbox.outbox_sweep() == 1
    assert OutboxMessage.objects.get().status == "DONE" and inline_receiver.handed == [{"id": 1}]

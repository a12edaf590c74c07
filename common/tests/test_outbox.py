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

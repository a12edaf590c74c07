"""A transactional outbox: work that must follow a commit is written as a row in the same transaction, then
handed to the broker after the commit, and handed again by a periodic sweep when that did not happen.

    outbox_register("draft.requested", handler)            # the app that does the work, in AppConfig.ready
    with transaction.atomic():
        ...                                                # the change
        outbox_enqueue(topic="draft.requested", key=str(message.pk), payload={"message_id": ...})

The lower app writes the row and never imports the higher one; the higher app registers a handler for the
topic. A handler hands the work off (typically `task.delay(...)`) and raises if it could not; it receives
the `OutboxMessage`, whose payload holds ids only. Consumers report `outbox_done`; `outbox_defer` puts a row
back with exponential backoff and jitter (DEAD after `CS_OUTBOX_MAX_ATTEMPTS`, or the topic's own limit).

`outbox_sweep` (Celery beat, or the in-process runner in embedded mode) dispatches every due PENDING row:
committed but never handed over (broker down at commit, process died after commit, a deferred retry), and,
for topics registered with `redeliver_after_s`, DISPATCHED rows nobody finished in that time.

A consumer that must wait for something a person controls (a shop whose connection is paused) puts the row
aside with `outbox_hold` instead of failing it again and again into DEAD; the owning app calls `outbox_release`
when the wait is over, and the row is dispatched afresh.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from common.models import OutboxMessage

log = logging.getLogger(__name__)

__all__ = [
    "Dispatched",
    "OutboxMessage",
    "outbox_backoff_s",
    "outbox_defer",
    "outbox_dispatch",
    "outbox_done",
    "outbox_enqueue",
    "outbox_hold",
    "outbox_purge",
    "outbox_register",
    "outbox_release",
    "outbox_request",
    "outbox_runner_set",
    "outbox_sweep",
]

Handler = Callable[[OutboxMessage], object]


@dataclass(frozen=True)
class _Registration:
    handler: Handler
    redeliver_after_s: float | None
    max_attempts: Callable[[], int] | None = None
    keep_done: bool = False
    inline: bool = False


_registry: dict[str, _Registration] = {}

# Where a committed row's dispatch runs. None: right there in the committing thread (Celery with a broker:
# a quick publish; tests; commands). A served embedded-mode process installs a background runner
# (ops.background) so an eager handler's work — a whole draft pipeline — never runs inside a customer's request.
Runner = Callable[[Callable[[], object]], None]
_runner: Runner | None = None


def outbox_runner_set(runner: Runner | None) -> None:
    global _runner
    _runner = runner


def _dispatch_after_commit(message_id: int) -> None:
    if _runner is None:
        outbox_dispatch(message_id)
    else:
        _runner(partial(outbox_dispatch, message_id))


def outbox_register(
    topic: str,
    handler: Handler,
    *,
    redeliver_after_s: float | None = None,
    max_attempts: Callable[[], int] | None = None,
    keep_done: bool = False,
    inline: bool = False,
) -> None:
    """Who hands off `topic`. `redeliver_after_s`: re-dispatch a DISPATCHED row that no consumer marked done
    in that time (a lost broker message). Leave it None when the owning app's own sweep watches the outcome.
    `max_attempts`: read at each failure (a setting may change), else CS_OUTBOX_MAX_ATTEMPTS. `keep_done`:
    the DONE row is the record people read (a webhook's delivery), so `outbox_purge` leaves it. `inline`: the
    handler is quick database work of its own (no network, no broker) and runs inside the enqueuing transaction,
    in a savepoint, right after the row is written; it must mark the row done itself (`outbox_done`). Its writes
    then commit with the change, atomically, and the row needs no dispatch after the commit (a claim, a read and
    two more commits saved). If it raises, its savepoint is rolled back and the row is dispatched after the
    commit as any other (then by the sweep)."""
    _registry[topic] = _Registration(handler, redeliver_after_s, max_attempts, keep_done, inline)


def _max_attempts(topic: str) -> int:
    registration = _registry.get(topic)
    if registration is not None and registration.max_attempts is not None:
        return int(registration.max_attempts())
    return int(settings.CS_OUTBOX_MAX_ATTEMPTS)


def _key(topic: str, key: str) -> str:
    return f"{topic}:{key}"[:200]


def outbox_backoff_s(attempts: int) -> float:
    """Exponential backoff with full jitter in its upper half: base·2^(n-1), capped."""
    base = float(settings.CS_OUTBOX_BACKOFF_BASE_S)
    cap = float(settings.CS_OUTBOX_BACKOFF_MAX_S)
    ceiling = min(cap, base * 2 ** max(attempts - 1, 0))
    return ceiling / 2 + random.uniform(0, ceiling / 2)


def outbox_enqueue(*, topic: str, key: str, payload: dict) -> OutboxMessage:
    """Write the request inside the caller's transaction; it is dispatched once that commits. The same
    (topic, key) twice is one row."""
    message = OutboxMessage(dedupe_key=_key(topic, key), topic=topic, payload=payload, next_attempt_at=timezone.now())
    if not _insert_unless_present(message):
        return OutboxMessage.objects.get(dedupe_key=message.dedupe_key)
    registration = _registry.get(topic)
    if registration is not None and registration.inline and _handled_inline(registration, message):
        return message
    transaction.on_commit(partial(_dispatch_after_commit, message.pk), robust=True)
    return message


def _handled_inline(registration: _Registration, message: OutboxMessage) -> bool:
    """Run an inline handler in a savepoint of the enqueuing transaction: True when it returned (it marked the
    row done; a handler that did not leaves a PENDING row, which the sweep dispatches); False, its writes rolled
    back and the error logged, to leave the row to the usual dispatch after the commit."""
    try:
        with transaction.atomic():
            registration.handler(message)
    except Exception as exc:
        error = type(exc).__name__
        log.warning("outbox.inline_failed topic=%s outbox_id=%s error=%s", message.topic, message.pk, error)
        return False
    return True


def _insert_unless_present(message: OutboxMessage) -> bool:
    """One statement where get_or_create takes four (SELECT, SAVEPOINT, INSERT, RELEASE): INSERT … ON CONFLICT
    (dedupe_key) DO NOTHING RETURNING id, on PostgreSQL and SQLite alike. True, with `message.pk` set, when the
    row is new; False when the key is already there (a writer that has not committed yet is waited for, as the
    unique index makes any insert wait, so the caller's SELECT then sees its row)."""
    meta = OutboxMessage._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) "
        f"ON CONFLICT ({quote(meta.get_field('dedupe_key').column)}) DO NOTHING RETURNING {quote(meta.pk.column)}"
    )
    params = [f.get_db_prep_save(f.pre_save(message, add=True), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return False
    message.pk = row[0]
    message._state.adding = False
    return True


def outbox_request(*, topic: str, key: str, payload: dict, dispatch: bool = True) -> OutboxMessage:
    """Ask again: (re)open the row as PENDING, due now, and (unless `dispatch=False`, for a caller that
    dispatches it itself) dispatch it after the current transaction."""
    now = timezone.now()
    with transaction.atomic():
        message, _ = OutboxMessage.objects.update_or_create(
            dedupe_key=_key(topic, key),
            defaults={
                "topic": topic,
                "payload": payload,
                "status": OutboxMessage.Status.PENDING,
                "attempts": 0,
                "next_attempt_at": now,
                "last_error": "",
                "done_at": None,
            },
        )
        if dispatch:
            transaction.on_commit(partial(_dispatch_after_commit, message.pk), robust=True)
    return message


@dataclass(frozen=True)
class Dispatched:
    """Truthy when the row was handed over; `result` is what the handler returned."""

    ok: bool
    result: object = None

    def __bool__(self) -> bool:
        return self.ok


def outbox_dispatch(message_id: int) -> Dispatched:
    """Hand one due PENDING row to its handler. Never raises for a handler failure: the row goes back to
    PENDING with backoff (the sweep tries again) and the error class is kept."""
    now = timezone.now()
    claim_until = now + timedelta(seconds=float(settings.CS_OUTBOX_CLAIM_S))
    # The claim: only one dispatcher moves a due row's next attempt forward.
    claimed = OutboxMessage.objects.filter(
        pk=message_id, status=OutboxMessage.Status.PENDING, next_attempt_at__lte=now
    ).update(next_attempt_at=claim_until, attempts=F("attempts") + 1)
    if not claimed:
        return Dispatched(False)
    message = OutboxMessage.objects.get(pk=message_id)
    registration = _registry.get(message.topic)
    try:
        if registration is None:
            raise LookupError(f"no handler for {message.topic}")
        result = registration.handler(message)
    except Exception as exc:
        outbox_defer(message_id=message_id, error=type(exc).__name__)
        return Dispatched(False)
    # An in-process (eager) consumer may have finished or deferred it already: only a row still PENDING
    # under this dispatcher's claim moves on.
    OutboxMessage.objects.filter(
        pk=message_id, status=OutboxMessage.Status.PENDING, next_attempt_at=claim_until
    ).update(status=OutboxMessage.Status.DISPATCHED, dispatched_at=timezone.now(), last_error="")
    log.info("outbox.dispatched topic=%s outbox_id=%s attempts=%d", message.topic, message_id, message.attempts)
    return Dispatched(True, result)


def outbox_defer(*, message_id: int, error: str) -> OutboxMessage | None:
    """Not delivered this time: PENDING again after a backoff, or DEAD after CS_OUTBOX_MAX_ATTEMPTS."""
    with transaction.atomic():
        message = OutboxMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None or message.status == OutboxMessage.Status.DONE:
            return message
        message.last_error = error[:200]
        if message.attempts >= _max_attempts(message.topic):
            message.status = OutboxMessage.Status.DEAD
        else:
            message.status = OutboxMessage.Status.PENDING
            message.next_attempt_at = timezone.now() + timedelta(seconds=outbox_backoff_s(message.attempts))
        message.save(update_fields=["status", "next_attempt_at", "last_error"])
    level = logging.ERROR if message.status == OutboxMessage.Status.DEAD else logging.WARNING
    log.log(
        level,
        "outbox.deferred topic=%s outbox_id=%s attempts=%d status=%s error=%s",
        message.topic,
        message.pk,
        message.attempts,
        message.status,
        error,
    )
    return message


def outbox_hold(*, message_id: int, reason: str) -> bool:
    """The consumer cannot do it until something a person switched off is on again: HELD, dispatched by nobody
    (the sweep included) until `outbox_release`. Only an open row (PENDING or DISPATCHED) is held; `reason` is
    kept as its last error. Returns whether the row is held now."""
    held = OutboxMessage.objects.filter(
        pk=message_id, status__in=[OutboxMessage.Status.PENDING, OutboxMessage.Status.DISPATCHED]
    ).update(status=OutboxMessage.Status.HELD, last_error=reason[:200])
    if held:
        log.info("outbox.held outbox_id=%s reason=%s", message_id, reason)
    return bool(held)


def outbox_release(*, message_ids: Iterable[int]) -> int:
    """HELD rows become PENDING, due now, with their attempts counted afresh, and are dispatched after the
    current transaction commits (the sweep picks up any whose dispatch is lost). Returns how many."""
    wanted = list(message_ids)
    if not wanted:
        return 0
    held = list(
        OutboxMessage.objects.filter(pk__in=wanted, status=OutboxMessage.Status.HELD).values_list("pk", flat=True)
    )
    released = OutboxMessage.objects.filter(pk__in=held, status=OutboxMessage.Status.HELD).update(
        status=OutboxMessage.Status.PENDING, attempts=0, next_attempt_at=timezone.now(), last_error=""
    )
    for pk in held:
        transaction.on_commit(partial(_dispatch_after_commit, pk), robust=True)
    if released:
        log.info("outbox.released count=%d", released)
    return released


def outbox_done(*, topic: str, key: str) -> int:
    """The consumer finished: the row is DONE (idempotent)."""
    return OutboxMessage.objects.filter(
        dedupe_key=_key(topic, key),
        status__in=[OutboxMessage.Status.PENDING, OutboxMessage.Status.DISPATCHED],
    ).update(status=OutboxMessage.Status.DONE, done_at=timezone.now(), last_error="")


def outbox_sweep(*, limit: int = 500) -> int:
    """Dispatch due PENDING rows (oldest first), after re-opening lost DISPATCHED rows of topics that asked
    for redelivery. Returns how many were handed over."""
    now = timezone.now()
    for topic, registration in _registry.items():
        if registration.redeliver_after_s is None:
            continue
        reopened = OutboxMessage.objects.filter(
            topic=topic,
            status=OutboxMessage.Status.DISPATCHED,
            dispatched_at__lt=now - timedelta(seconds=registration.redeliver_after_s),
        ).update(status=OutboxMessage.Status.PENDING, next_attempt_at=now)
        if reopened:
            log.warning("outbox.redeliver topic=%s count=%d", topic, reopened)
    due = list(
        OutboxMessage.objects.filter(status=OutboxMessage.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    handed = sum(1 for pk in due if outbox_dispatch(pk))
    if due:
        log.info("outbox.swept due=%d dispatched=%d", len(due), handed)
    return handed


def outbox_purge(*, limit: int = 5000) -> int:
    """Delete DONE rows finished more than CS_OUTBOX_RETENTION_DAYS ago, oldest first, at most `limit` per call
    (the sweep calls it every pass, so a backlog drains in steps). PENDING, DISPATCHED and DEAD rows stay, and
    so do the DONE rows of topics registered with `keep_done`. Returns how many were deleted."""
    cutoff = timezone.now() - timedelta(days=float(settings.CS_OUTBOX_RETENTION_DAYS))
    kept = [topic for topic, registration in _registry.items() if registration.keep_done]
    old = (
        OutboxMessage.objects.filter(status=OutboxMessage.Status.DONE, done_at__lt=cutoff)
        .exclude(topic__in=kept)
        .order_by("done_at")
        .values_list("pk", flat=True)[:limit]
    )
    deleted, _ = OutboxMessage.objects.filter(pk__in=list(old)).delete()
    if deleted:
        log.info("outbox.purged count=%d older_than_days=%s", deleted, settings.CS_OUTBOX_RETENTION_DAYS)
    return deleted

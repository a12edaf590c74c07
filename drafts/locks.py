"""Per-ticket leases. Redis when REDIS_URL is set; a database row otherwise (embedded mode).

A lease expires on its own, so a crashed worker blocks its ticket only until the lease runs out;
the final write is fenced separately (row lock + "is this still the latest input?").
Releasing never raises: a lease that cannot be released (Redis gone, database gone, already expired) is
left to expire, and the error that ended the run is the one that propagates."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

import redis
import redis.exceptions
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from drafts.models import TicketLease

log = logging.getLogger(__name__)


@lru_cache(maxsize=4)
def _redis(url: str):
    return redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)


def _key(ticket_id: int) -> str:
    return f"cs:ticket-lease:{ticket_id}"


@dataclass
class Lease:
    """Truthy when this caller holds the ticket; otherwise `remaining_s` says when the holder's lease ends."""

    held: bool
    remaining_s: float = 0.0

    def __bool__(self) -> bool:
        return self.held


def lease_remaining_s(ticket_id: int) -> float:
    """Seconds until the ticket's current lease expires (0 when nobody holds it). Redis PTTL or the DB row."""
    url = getattr(settings, "REDIS_URL", None)
    if url:
        pttl = _redis(url).pttl(_key(ticket_id))
        return max(pttl, 0) / 1000.0  # -2: no key; -1: no expiry (never set by us)
    expires_at = TicketLease.objects.filter(ticket_id=ticket_id).values_list("expires_at", flat=True).first()
    if expires_at is None:
        return 0.0
    return max((expires_at - timezone.now()).total_seconds(), 0.0)


def leases_held(ticket_ids: list[int]) -> set[int]:
    """Which of these tickets have a live lease (one round trip)."""
    if not ticket_ids:
        return set()
    url = getattr(settings, "REDIS_URL", None)
    if url:
        pipe = _redis(url).pipeline(transaction=False)
        for ticket_id in ticket_ids:
            pipe.pttl(_key(ticket_id))
        return {tid for tid, pttl in zip(ticket_ids, pipe.execute(), strict=True) if pttl and pttl > 0}
    return set(
        TicketLease.objects.filter(ticket_id__in=ticket_ids, expires_at__gt=timezone.now()).values_list(
            "ticket_id", flat=True
        )
    )


@contextmanager
def ticket_lease(ticket_id: int, *, lease_s: int | None = None) -> Iterator[Lease]:
    """Yields a `Lease`: truthy when this caller holds the ticket's lease, falsy when someone else does.

    The lease lasts `settings.CS_AI_LEASE_S` (200 s by default) unless given. Acquiring may raise the
    store's connection error (the caller retries); releasing never raises."""
    lease_s = lease_s or settings.CS_AI_LEASE_S
    url = getattr(settings, "REDIS_URL", None)
    if url:
        lock = _redis(url).lock(_key(ticket_id), timeout=lease_s, blocking=False)
        acquired = lock.acquire()
        try:
            yield Lease(True) if acquired else Lease(False, lease_remaining_s(ticket_id))
        finally:
            if acquired:
                _release_quietly(ticket_id, lock.release)
        return
    holder = uuid.uuid4().hex
    acquired = _db_acquire(ticket_id, holder, lease_s)
    try:
        yield Lease(True) if acquired else Lease(False, lease_remaining_s(ticket_id))
    finally:
        if acquired:
            _release_quietly(ticket_id, lambda: TicketLease.objects.filter(ticket_id=ticket_id, holder=holder).delete())


def _release_quietly(ticket_id: int, release) -> None:
    try:
        release()
    except redis.exceptions.LockNotOwnedError:
        pass  # the lease expired and may belong to someone else now: leave it
    except (redis.exceptions.RedisError, DatabaseError, OSError) as exc:
        # The store is unreachable: the lease expires by itself within CS_AI_LEASE_S.
        log.warning("drafts.lease_release_failed ticket_id=%s error=%s", ticket_id, type(exc).__name__)


def _db_acquire(ticket_id: int, holder: str, lease_s: int) -> bool:
    now = timezone.now()
    expires = now + timedelta(seconds=lease_s)
    with transaction.atomic():
        if TicketLease.objects.filter(ticket_id=ticket_id, expires_at__lt=now).update(
            holder=holder, expires_at=expires
        ):
            return True
    try:
        with transaction.atomic():
            TicketLease.objects.create(ticket_id=ticket_id, holder=holder, expires_at=expires)
        return True
    except IntegrityError:
        return False

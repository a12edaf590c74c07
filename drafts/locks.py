"""Per-ticket leases. Redis when REDIS_URL is set; a database row otherwise (embedded mode).

A lease expires on its own, so a crashed worker blocks its ticket only until the lease runs out;
the final write is fenced separately (row lock + "is this still the latest input?")."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone


@lru_cache(maxsize=4)
def _redis(url: str):
    import redis

    return redis.Redis.from_url(url)


@contextmanager
def ticket_lease(ticket_id: int, *, lease_s: int | None = None) -> Iterator[bool]:
    """Yields True when this caller holds the ticket's lease, False when someone else does.

    The lease lasts `settings.CS_AI_LEASE_S` (200 s by default) unless given."""
    lease_s = lease_s or settings.CS_AI_LEASE_S
    url = getattr(settings, "REDIS_URL", None)
    if url:
        import redis.exceptions

        lock = _redis(url).lock(f"cs:ticket-lease:{ticket_id}", timeout=lease_s, blocking=False)
        acquired = lock.acquire()
        try:
            yield acquired
        finally:
            if acquired:
                try:
                    lock.release()
                except redis.exceptions.LockNotOwnedError:
                    pass  # the lease expired and may belong to someone else now: leave it
        return
    holder = uuid.uuid4().hex
    acquired = _db_acquire(ticket_id, holder, lease_s)
    try:
        yield acquired
    finally:
        if acquired:
            from drafts.models import TicketLease

            TicketLease.objects.filter(ticket_id=ticket_id, holder=holder).delete()


def _db_acquire(ticket_id: int, holder: str, lease_s: int) -> bool:
    from drafts.models import TicketLease

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

"""Who else has a ticket open: "김상담님이 보는 중 / 작성 중" on the ticket page and in the staff API.

Each open ticket page sends a heartbeat every few seconds (POST /api/ops/tickets/<id>/presence/ {"typing": bool});
a heartbeat lasts CS_PRESENCE_TTL_S. Stored in Redis when REDIS_URL is set (one hash per ticket, a field per
operator holding its expiry, the key itself expiring), in the TicketPresence table otherwise (embedded mode).
Real time, not the desk's pinned clock: presence is about browser sessions, not about the ticket's SLA.

Presence only informs: it locks nothing. What keeps two operators from answering the same message twice is the
reply's own check (`last_seen_message_id`, tickets.services.ticket_reply_add, under the ticket's row lock).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.actors import Person
from common.display import person_name
from tickets.models import TicketPresence

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Present:
    user_id: int
    username: str
    name: str
    typing: bool

    @property
    def words(self) -> str:
        return f"{self.name}님이 {'작성 중' if self.typing else '보는 중'}"


@lru_cache(maxsize=4)
def _redis(url: str):
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)


def _key(ticket_id: int) -> str:
    return f"cs:ticket-presence:{ticket_id}"


def presence_beat(*, ticket_id: int, user: Person, typing: bool, page: str = "") -> None:
    """Record that `user` has the ticket open (and whether they are writing), for CS_PRESENCE_TTL_S. `page` names
    the open page (one per page load), so the page a reload replaces cannot take the new one's presence away."""
    ttl = max(1, int(settings.CS_PRESENCE_TTL_S))
    url = getattr(settings, "REDIS_URL", None)
    if url:
        entry = json.dumps({"until": time.time() + ttl, "typing": bool(typing), "page": page})
        pipe = _redis(url).pipeline()
        pipe.hset(_key(ticket_id), str(user.pk), entry)
        pipe.expire(_key(ticket_id), ttl)
        pipe.execute()
        return
    values = {"typing": bool(typing), "expires_at": timezone.now() + timedelta(seconds=ttl), "page": page}
    try:
        with transaction.atomic():
            TicketPresence.objects.update_or_create(ticket_id=ticket_id, user=user, defaults=values)
    except IntegrityError:  # two heartbeats of the same page at once: the other one wrote the row
        TicketPresence.objects.filter(ticket_id=ticket_id, user=user).update(**values)


def presence_leave(*, ticket_id: int, user: Person, page: str = "") -> None:
    """The page was closed (or the reply sent): drop the heartbeat at once instead of waiting for it to expire.
    With `page`, only if the heartbeat is still that page's: a page closing as its reload opens (taking the
    ticket, a sent reply) announces its leaving after the new page has already said it is there."""
    url = getattr(settings, "REDIS_URL", None)
    if url:
        client = _redis(url)
        if page:
            raw = client.hget(_key(ticket_id), str(user.pk))
            if raw is None or json.loads(raw).get("page", "") != page:
                return
        client.hdel(_key(ticket_id), str(user.pk))
        return
    rows = TicketPresence.objects.filter(ticket_id=ticket_id, user=user)
    (rows.filter(page=page) if page else rows).delete()


def presence_list(*, ticket_id: int, exclude_user_id: int | None = None) -> list[Present]:
    """Who has the ticket open now (expired heartbeats are dropped as they are found), by name."""
    url = getattr(settings, "REDIS_URL", None)
    live: dict[int, bool] = {}
    if url:
        client = _redis(url)
        now = time.time()
        stale = []
        for field, raw in client.hgetall(_key(ticket_id)).items():
            entry = json.loads(raw)
            if entry.get("until", 0) > now:
                live[int(field)] = bool(entry.get("typing"))
            else:
                stale.append(field)
        if stale:
            client.hdel(_key(ticket_id), *stale)
    else:
        now = timezone.now()
        TicketPresence.objects.filter(ticket_id=ticket_id, expires_at__lte=now).delete()
        live = dict(TicketPresence.objects.filter(ticket_id=ticket_id).values_list("user_id", "typing"))
    live.pop(exclude_user_id, None)
    users = get_user_model().objects.filter(pk__in=live).order_by("pk")
    return [Present(u.pk, u.get_username(), person_name(u), live[u.pk]) for u in users]

"""Pure rules for logins and tokens: no ORM, no settings reads."""

from __future__ import annotations

import hashlib
import math
from datetime import datetime, timedelta


def token_digest(key: str) -> str:
    """What is stored for a token key (SHA-256, hex): keys are random 160-bit values, so no salt is needed."""
    return hashlib.sha256(key.encode()).hexdigest()


def token_expires_at(*, created_at: datetime, ttl: timedelta) -> datetime:
    return created_at + ttl


def token_is_expired(*, created_at: datetime, now: datetime, ttl: timedelta) -> bool:
    return now >= token_expires_at(created_at=created_at, ttl=ttl)


def tokens_to_drop(tokens: list[tuple[int, datetime, bool]], *, now: datetime, ttl: timedelta, keep: int) -> list[int]:
    """Before a new token is issued: the ids to delete among the user's tokens `(id, created_at, current_password)`,
    newest first — expired ones, ones issued under another password, and the oldest beyond `keep` live ones."""
    drop, live = [], 0
    for token_id, created_at, current_password in tokens:
        if not current_password or token_is_expired(created_at=created_at, now=now, ttl=ttl) or live >= keep:
            drop.append(token_id)
        else:
            live += 1
    return drop


def retry_after_seconds(*, last_failure_at: datetime | None, cooloff: timedelta, now: datetime) -> int:
    """Seconds until a lockout started by the failure at `last_failure_at` lifts (at least 1)."""
    if last_failure_at is None:
        return max(1, math.ceil(cooloff.total_seconds()))
    return max(1, math.ceil((last_failure_at + cooloff - now).total_seconds()))


def username_key(raw: object) -> str | None:
    """The per-username throttle counts one name however it is typed ("C003", " c003")."""
    if not isinstance(raw, str):
        return None
    return raw.strip().lower()[:150] or None


def forwarded_client_ip(*, remote_addr: str | None, forwarded_for: str, trusted_proxies: int) -> str | None:
    """The client address: REMOTE_ADDR, or behind `trusted_proxies` proxies the entry they appended to
    X-Forwarded-For (counted from the right; entries further left are the client's own claims)."""
    if trusted_proxies > 0:
        hops = [part.strip() for part in forwarded_for.split(",") if part.strip()]
        if len(hops) >= trusted_proxies:
            return hops[-trusted_proxies]
    return remote_addr

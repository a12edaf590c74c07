"""Pure rules of the shop connection: signatures, versions. No ORM, no settings."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit

SIGNATURE_TOLERANCE_S = 300


def api_key_hash(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def hmac_hex(secret: str, message: bytes | str) -> str:
    if isinstance(message, str):
        message = message.encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, *, t: int) -> str:
    """`X-CS-Signature`: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">."""
    return f"t={t},v1={hmac_hex(secret, str(t).encode() + b'.' + body)}"


def signature_verify(
    secret: str, header: str, body: bytes, *, now: int, tolerance_s: int = SIGNATURE_TOLERANCE_S
) -> bool:
    """What a receiver does (the simulator, the README): constant-time, and only within the tolerance."""
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    try:
        t = int(parts.get("t", ""))
    except ValueError:
        return False
    if abs(now - t) > tolerance_s:
        return False
    expected = hmac_hex(secret, str(t).encode() + b"." + body)
    return hmac.compare_digest(expected, parts.get("v1", ""))


def session_signature(secret: str, customer_id: str, expires_at: int) -> str:
    return hmac_hex(secret, f"{customer_id}.{expires_at}")


def session_signature_ok(secret: str, customer_id: str, expires_at: int, signature: str) -> bool:
    return hmac.compare_digest(session_signature(secret, customer_id, expires_at), signature.lower())


def version_verdict(*, stored: int | None, incoming: int) -> str:
    """'apply' (new or newer), 'same' (a replay: no-op) or 'stale' (older than what we have)."""
    if stored is None or incoming > stored:
        return "apply"
    return "same" if incoming == stored else "stale"


def webhook_success(status: int) -> bool:
    return 200 <= status < 300


def origin_normalized(origin: str) -> str | None:
    """scheme://host[:port], lowercased, or None for anything else (paths, wildcards, other schemes)."""
    parts = urlsplit((origin or "").strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or "*" in origin:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{port}"


def frame_ancestors(allowed_origins: list[str]) -> str:
    """The CSP source list: exactly the allowed origins, or 'none' (never a wildcard)."""
    origins = [o for o in (origin_normalized(x) for x in allowed_origins or []) if o]
    return " ".join(origins) if origins else "'none'"


def origin_allowed(origin: str, allowed_origins: list[str]) -> bool:
    normalized = origin_normalized(origin)
    return normalized is not None and normalized in {origin_normalized(x) for x in allowed_origins or []}

"""Pure rules of the shop connection: signatures, versions, where webhooks may go. No ORM, no settings."""

from __future__ import annotations

import hashlib
import hmac
from ipaddress import IPv4Address, IPv6Address, ip_address
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
    """2xx only. A redirect is a failure too: the desk never follows one (the signed event and its headers
    would go wherever the receiver points, an internal address included)."""
    return 200 <= status < 300


def address_forbidden(address: IPv4Address | IPv6Address) -> bool:
    """May the desk not connect to this address for a webhook? True for anything but a public unicast address:
    loopback, link-local (169.254.0.0/16 with the cloud metadata address, fe80::/10), private (RFC 1918,
    fc00::/7), shared (100.64.0.0/10), unspecified, multicast, reserved and documentation ranges. An IPv6
    address that carries an IPv4 one (IPv4-mapped, 6to4, Teredo) is judged by that IPv4 address as well."""
    if isinstance(address, IPv6Address):
        embedded = [address.ipv4_mapped, address.sixtofour, address.teredo[1] if address.teredo else None]
        if any(inner is not None and address_forbidden(inner) for inner in embedded):
            return True
    return not address.is_global or address.is_multicast or address.is_reserved


WEBHOOK_URL_SCHEME = "웹훅 URL은 http:// 또는 https://로 시작하는 주소여야 합니다."
WEBHOOK_URL_USERINFO = "웹훅 URL에 사용자 이름이나 비밀번호를 넣을 수 없습니다."
WEBHOOK_URL_PORT = "웹훅 URL의 포트 번호가 올바르지 않습니다."
WEBHOOK_URL_INTERNAL = (
    "내부망·사설·루프백 주소로는 웹훅을 보낼 수 없습니다. 외부에서 접속할 수 있는 주소를 입력해 주세요."
)


def webhook_url_problem(url: str, *, allow_private: bool) -> str | None:
    """Why webhooks may not be sent to `url` (a Korean message for the form), or None ("" = no webhook).
    Only what the URL itself shows: the scheme, and a literal address or `localhost`. A host name is judged
    where it matters, on the address it resolves to at each connection (integration.outbound)."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return WEBHOOK_URL_SCHEME
    if parts.username is not None or parts.password is not None:
        return WEBHOOK_URL_USERINFO
    try:
        parts.port  # noqa: B018  (raises ValueError for a port out of range or not a number)
    except ValueError:
        return WEBHOOK_URL_PORT
    if allow_private:
        return None
    host = parts.hostname.rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):  # RFC 6761: always loopback
        return WEBHOOK_URL_INTERNAL
    try:
        address = ip_address(host)
    except ValueError:
        return None
    return WEBHOOK_URL_INTERNAL if address_forbidden(address) else None


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

"""Remove credentials, personal data, internal addresses and raw stack traces from text. Pure.

Two uses, one set of patterns:
- `redact` (text that leaves for a model or a customer-facing screen, e.g. service events in a diagnosis):
  everything below. Order matters: stack traces go first (their frames carry paths and hosts), then URLs (so
  an internal URL is replaced whole before its query string is read as `token=...`), then credentials, card
  numbers, phone numbers, e-mail and street addresses.
- `redact_personal` (our own logs, where tracebacks and hosts are what an engineer needs): credentials and
  personal data only.
Markers never match any pattern, so both are idempotent.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

TOKEN = "[토큰]"
PASSWORD = "[비밀번호]"
CARD = "[카드번호]"
PHONE = "[전화번호]"
EMAIL = "[이메일]"
INTERNAL_URL = "[내부URL]"
IP_ADDRESS = "[IP주소]"
STACK = "[스택트레이스 생략]"
ADDRESS = "[주소]"

# --- stack traces -------------------------------------------------------------------------------------------

# "Traceback (most recent call last):" and every indented line after it. The final unindented
# "SomeError: message" line stays: it is the summary, and the later rules clean what it says.
_PY_TRACEBACK = re.compile(r"Traceback \(most recent call last\):[^\n]*(?:\n[ \t]+[^\n]*)*")
# A Python frame outside a full traceback, with the source line that usually follows it.
_PY_FRAME = re.compile(r"[ \t]*File \"[^\"\n]+\", line \d+(?:, in [^\n]*)?(?:\n[ \t]{4,}[^\n]*)?")
_JAVA_THREAD = re.compile(r"Exception in thread \"[^\"\n]*\"[^\n]*")
_JAVA_FRAME = re.compile(
    r"[ \t]*\bat (?:[\w$.@-]+//?)*(?:[\w$]+\.)+[\w$<>]+"  # at java.base/com.x.Y.method
    r"\((?:[\w$]+\.(?:java|kt|scala|groovy):\d+|Native Method|Unknown Source)\)"
)
_JAVA_MORE = re.compile(r"[ \t]*\.\.\. \d+ (?:more|common frames omitted)")
_STACK_RUN = re.compile(re.escape(STACK) + r"(?:\s*" + re.escape(STACK) + r")+")

# --- URLs and hosts -----------------------------------------------------------------------------------------

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://(?:\[토큰\]@)?(?:\[[0-9A-Fa-f:.]+\])?[^\s\"'<>`)\]}]*", re.IGNORECASE)
_WEB_SCHEMES = {"http", "https", "ws", "wss"}
_INTERNAL_SUFFIXES = (".internal", ".local", ".svc", ".cluster.local", ".lan", ".corp", ".intra", ".intranet")
_INTERNAL_LABELS = {"internal", "intra", "intranet", "corp", "svc", "private", "localhost", "staging", "stg", "admin"}
_INTERNAL_HOST = re.compile(
    r"(?<![\w.@-])(?:localhost|(?:[a-z0-9-]+\.)+(?:cluster\.local|internal|local|svc))(?::\d{1,5})?(?![\w-])",
    re.IGNORECASE,
)
_PRIVATE_IP = re.compile(
    r"(?<![\d.])(?:10\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])|192\.168|127\.\d{1,3})\.\d{1,3}\.\d{1,3}(?::\d{1,5})?(?![\d.])"
)
# Any other IPv4 address: a customer's address is personal data.
_IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])")

# --- credentials --------------------------------------------------------------------------------------------

_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+(?!\[)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)?")
_API_KEY = re.compile(
    r"\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{20,}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
)
_PASSWORD_KEYS = r"password|passwd|pwd|비밀번호"
_SECRET_KEYS = (
    r"access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|token|api[_-]?key|apikey|secret|client[_-]?secret"
    r"|session[_-]?id|sessionid|session|jsessionid|phpsessid|sid|cookie|authorization|x-api-key"
)
_KEY_VALUE = re.compile(
    rf"(?P<key>(?<![\w-])(?:{_PASSWORD_KEYS}|{_SECRET_KEYS}))(?P<q1>[\"']?)(?P<sep>\s*[=:]\s*)(?P<q2>[\"']?)"
    r"(?P<val>(?!\[|(?:Bearer|Basic|Token)\s)[^\s\"'&;,)}\]]+)",
    re.IGNORECASE,
)
# DRF token keys and similar 40-hex secrets, standing alone.
_HEX40 = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{40}(?![0-9A-Za-z])")
_URL_USERINFO = re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+@")

# --- personal data ------------------------------------------------------------------------------------------

# 13-19 digits, optionally grouped by single spaces or dashes. Order ids like HR20260721001 are glued to
# letters and amounts like 38,000원 use commas, so neither matches.
_CARD = re.compile(r"(?<![A-Za-z0-9-])\d(?:[ -]?\d){12,18}(?![A-Za-z0-9-])")
_PHONE = re.compile(
    r"(?<![A-Za-z0-9+-])(?:"
    r"(?:\+82[ -]?(?:\(0\))?|0)1[016789][ .-]?\d{3,4}[ .-]?\d{4}"  # mobile: 010-1234-5678, 01012345678, +82 10 ...
    r"|(?:\+82[ -]?(?:\(0\))?|0)(?:2|[3-6][1-5]|70)[ .-]\d{3,4}[ .-]\d{4}"  # landline / 070, separators required
    r")(?![A-Za-z0-9-])"
)
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Road-name addresses: 서울특별시 송파구 올림픽로 300, 101동 1502호 / 경기도 성남시 분당구 판교역로 235.
_ADDRESS = re.compile(
    r"[가-힣]+(?:특별시|광역시|특별자치시|특별자치도|도)\s+[가-힣]+(?:시|군|구)(?:\s+[가-힣]+구)?"
    r"\s+[가-힣0-9]+(?:로|길)\s*\d[\d-]*(?:,?\s*[0-9가-힣-]+(?:동|호|층|번지))*"
)

# Dict keys whose whole value is sensitive, whatever it looks like (redact_obj).
_SENSITIVE_KEY = re.compile(
    rf"^(?:{_PASSWORD_KEYS}|{_SECRET_KEYS}|card[_-]?(?:no|number)|pan|cvc|cvv|phone|mobile|tel|e-?mail|ssn|rrn"
    r"|(?:client|remote|user)[_-]?ip|ip)$",
    re.IGNORECASE,
)


def _host_is_internal(host: str) -> bool:
    host = host.lower().rstrip(".")
    if not host:
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved
    if host == "localhost" or host.endswith(_INTERNAL_SUFFIXES):
        return True
    if "." not in host:  # a bare service name: payment-svc, pg-gateway
        return True
    labels = host.split(".")
    return any(
        label in _INTERNAL_LABELS or label.endswith(("-internal", "-svc", "-intra")) or label.startswith("internal-")
        for label in labels
    )


def _url_is_internal(url: str) -> bool:
    try:
        parts = urlsplit(url.replace("://" + TOKEN + "@", "://user@", 1))
        host = parts.hostname or ""
    except ValueError:
        return True
    if parts.scheme.lower() not in _WEB_SCHEMES:  # jdbc:, redis://, postgres://: infrastructure, never public
        return True
    return _host_is_internal(host)


def _replace_url(match: re.Match[str]) -> str:
    url = match.group(0)
    if _url_is_internal(url):
        return INTERNAL_URL
    return _URL_USERINFO.sub(TOKEN + "@", url)


def _replace_key_value(match: re.Match[str]) -> str:
    key = match.group("key")
    marker = PASSWORD if re.fullmatch(_PASSWORD_KEYS, key, re.IGNORECASE) else TOKEN
    return f"{key}{match.group('q1')}{match.group('sep')}{match.group('q2')}{marker}"


_Step = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]
_PERSONAL_STEPS: tuple[_Step, ...] = (
    (_URL_USERINFO, TOKEN + "@"),
    (_BEARER, lambda m: f"{m.group(1)} {TOKEN}"),
    (_JWT, TOKEN),
    (_API_KEY, TOKEN),
    (_HEX40, TOKEN),
    (_KEY_VALUE, _replace_key_value),
    (_EMAIL, EMAIL),
    (_CARD, CARD),
    (_PHONE, PHONE),
    (_ADDRESS, ADDRESS),
)
_STEPS: tuple[_Step, ...] = (
    (_PY_TRACEBACK, STACK),
    (_JAVA_THREAD, STACK),
    (_PY_FRAME, STACK),
    (_JAVA_FRAME, STACK),
    (_JAVA_MORE, STACK),
    (_STACK_RUN, STACK),
    (_URL, _replace_url),
    (_INTERNAL_HOST, INTERNAL_URL),
    (_PRIVATE_IP, INTERNAL_URL),
    (_IPV4, IP_ADDRESS),
    *_PERSONAL_STEPS[1:],  # URL credentials are handled by _replace_url above
)


def _apply(steps: tuple[_Step, ...], text: str) -> str:
    if not text:
        return text
    for pattern, replacement in steps:
        text = pattern.sub(replacement, text)
    return text


def redact(text: str) -> str:
    """Everything: stack traces, internal URLs and IPs, credentials, personal data."""
    return _apply(_STEPS, text)


def mask_contact(text: str) -> str:
    """E-mail, card and phone numbers only: for customer words sent to the chat agent, which must still see
    order ids and the new shipping address a customer asks for."""
    return _apply(((_EMAIL, EMAIL), (_CARD, CARD), (_PHONE, PHONE)), text)


def redact_personal(text: str) -> str:
    """Credentials and personal data only (tokens, keys, passwords, e-mail, card, phone, street address)."""
    return _apply(_PERSONAL_STEPS, text)


def redact_obj(obj: Any) -> Any:
    """Redact every string inside dicts, lists and tuples. A value under a sensitive key is masked whole."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if isinstance(key, str) and _SENSITIVE_KEY.match(key) and value not in (None, "", [], {}):
                out[key] = _marker_for_key(key)
            else:
                out[key] = redact_obj(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [redact_obj(item) for item in obj]
    return obj


def _marker_for_key(key: str) -> str:
    lowered = key.lower()
    if re.fullmatch(_PASSWORD_KEYS, lowered):
        return PASSWORD
    if lowered.startswith(("card", "pan", "cvc", "cvv")):
        return CARD
    if lowered in {"phone", "mobile", "tel"}:
        return PHONE
    if lowered.replace("-", "") == "email":
        return EMAIL
    if lowered.endswith("ip"):
        return IP_ADDRESS
    return TOKEN


def _internal_urls(text: str) -> bool:
    return any(_url_is_internal(m.group(0)) for m in _URL.finditer(text))


_DETECTORS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("stack_trace", lambda t: any(p.search(t) for p in (_PY_TRACEBACK, _PY_FRAME, _JAVA_THREAD, _JAVA_FRAME))),
    ("internal_url", lambda t: _internal_urls(t) or bool(_INTERNAL_HOST.search(t) or _PRIVATE_IP.search(t))),
    ("url_credentials", lambda t: bool(_URL_USERINFO.search(t))),
    ("ip_address", lambda t: bool(_IPV4.search(t))),
    ("bearer_token", lambda t: bool(_BEARER.search(t))),
    ("jwt", lambda t: bool(_JWT.search(t))),
    ("api_key", lambda t: bool(_API_KEY.search(t) or _HEX40.search(t))),
    ("secret_param", lambda t: bool(_KEY_VALUE.search(t))),
    ("email", lambda t: bool(_EMAIL.search(t))),
    ("card_number", lambda t: bool(_CARD.search(t))),
    ("phone", lambda t: bool(_PHONE.search(t))),
    ("address", lambda t: bool(_ADDRESS.search(t))),
)


def find_sensitive(text: str) -> list[str]:
    """Names of the pattern families still present in `text`; empty once `redact` has run."""
    if not text:
        return []
    return [name for name, present in _DETECTORS if present(text)]

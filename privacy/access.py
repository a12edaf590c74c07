"""Recording an access while a request runs; writing the request's records once, after the response.

Views call `access_note(request, ...)`, which only appends to a list on the request (no query). The middleware
hands that list to the response's close hook, which the WSGI server calls after the body is sent: one
`bulk_create` per request, off the path the operator waits on. Exports are recorded before their data leaves
(`access_record_now`), because a refused or failed write must stop the export.
"""

from __future__ import annotations

import ipaddress
import logging

from django.conf import settings
from django.http import HttpRequest

from common.clock import now
from privacy.models import AccessRecord

log = logging.getLogger(__name__)

PENDING_ATTR = "_privacy_access_pending"
Action = AccessRecord.Action
ObjectType = AccessRecord.ObjectType
Surface = AccessRecord.Surface


def _http_request(request) -> HttpRequest:
    # A DRF Request wraps Django's; the list lives on the one the middleware sees.
    return getattr(request, "_request", request)


def client_ip(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, or behind CS_TRUSTED_PROXY_COUNT proxies the entry the nearest trusted one appended (the
    same reading as the login throttle)."""
    meta = request.META
    candidate = meta.get("REMOTE_ADDR")
    trusted = int(getattr(settings, "CS_TRUSTED_PROXY_COUNT", 0) or 0)
    if trusted > 0:
        hops = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(hops) >= trusted:
            candidate = hops[-trusted]
    try:
        return str(ipaddress.ip_address(candidate)) if candidate else None
    except ValueError:
        return None


def _record(request, *, surface, action, object_type, customer_id, object_id, reason="") -> AccessRecord:
    http = _http_request(request)
    user = getattr(http, "user", None)
    return AccessRecord(
        at=now(),
        operator_id=getattr(user, "pk", None),
        operator=(getattr(user, "get_username", lambda: "")() or "-")[:150],
        ip_address=client_ip(http),
        surface=surface,
        action=action,
        object_type=object_type,
        object_id=str(object_id or "")[:64],
        customer_id=str(customer_id or "")[:32],
        reason=reason,
    )


def api_view_note(request, *, object_type: str, customer_id: str, object_id: object) -> None:
    """A staff read of one customer's record through the API (`access_note`, VIEW on the API surface)."""
    access_note(
        request,
        surface=Surface.API,
        action=Action.VIEW,
        object_type=object_type,
        customer_id=customer_id,
        object_id=object_id,
    )


def access_note(
    request,
    *,
    surface: str,
    action: str,
    object_type: str,
    customer_id: str | None = "",
    object_id: object = "",
) -> None:
    """Remember an access for this request's one write after the response."""
    http = _http_request(request)
    pending = getattr(http, PENDING_ATTR, None)
    if pending is None:
        pending = []
        setattr(http, PENDING_ATTR, pending)
    pending.append(
        _record(
            request,
            surface=surface,
            action=action,
            object_type=object_type,
            customer_id=customer_id,
            object_id=object_id,
        )
    )


def access_record_now(
    request, *, surface: str, object_type: str, customer_id: str, object_id: object, reason: str
) -> AccessRecord:
    """An export: written before the data leaves; the database refuses it without a reason."""
    record = _record(
        request,
        surface=surface,
        action=Action.EXPORT,
        object_type=object_type,
        customer_id=customer_id,
        object_id=object_id,
        reason=reason,
    )
    record.save()
    return record


def access_pending(request) -> list[AccessRecord]:
    return list(getattr(_http_request(request), PENDING_ATTR, None) or [])


def access_flush(records: list[AccessRecord]) -> None:
    """The request's records in one INSERT. Called after the response is sent: a failure cannot reach the
    operator any more, so it is logged loudly (an error line with the count, never the customers)."""
    if not records:
        return
    try:
        if len(records) == 1:
            # One page view, one row: a plain INSERT in autocommit (bulk_create would add BEGIN and COMMIT).
            records[0].save(force_insert=True)
        else:
            AccessRecord.objects.bulk_create(records)
    except Exception:
        log.exception("privacy.access_log_write_failed count=%d", len(records))

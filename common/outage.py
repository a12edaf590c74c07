"""Degrade, don't fall over: what a backing-service outage looks like to an `/api/` client.

An outage is an error from the database (`OperationalError`, `InterfaceError`), from Redis (the cache, the
leases) or from the broker (kombu's `OperationalError` when a task cannot be published). During one every
`/api/` answer is the documented JSON shape with a status that says "try again":

    503 {"code": "service_unavailable", "detail": "<Korean>"}   Retry-After: <seconds>

Three hooks, each small:
- `common.apis.exception_handler` calls `outage_response` for errors raised inside DRF views;
- `OutageMiddleware` (first in MIDDLEWARE) does the same for errors raised outside DRF: plain Django views
  under /api/ and the middleware below it (sessions, auth);
- `FailOpenThrottleMixin` lets a request through when the throttle's cache is down: refusing every customer
  because the rate counter is unreachable would turn a cache outage into a full outage.

A broker that is down when a customer's message has just been committed must not turn that committed message
into an error answer: the draft request is an outbox row (common/outbox.py) dispatched after commit with
failures deferred, and the periodic sweep hands it over later.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

__all__ = [
    "OUTAGE_CODE",
    "OUTAGE_DETAIL",
    "OUTAGE_ERRORS",
    "FailOpenThrottleMixin",
    "OutageMiddleware",
    "is_outage",
    "outage_response",
    "retry_after_s",
]

OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
    BrokerOperationalError,
    ConnectionError,  # the builtin: a refused or reset socket that no client library wrapped
    TimeoutError,
)
OUTAGE_CODE = "service_unavailable"
OUTAGE_DETAIL = "일시적인 장애로 요청을 처리하지 못했습니다. 잠시 후 다시 시도해 주세요."
API_PREFIX = "/api/"


def retry_after_s() -> int:
    """Seconds a client should wait before retrying (`CS_OUTAGE_RETRY_AFTER_S`, 10 by default)."""
    return int(getattr(settings, "CS_OUTAGE_RETRY_AFTER_S", 10))


def is_outage(exc: BaseException | None) -> bool:
    """True for a backing-service outage, also when it is the cause/context of another error
    (e.g. Django's `SessionInterrupted` raised while saving a session to a database that went away)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, OUTAGE_ERRORS):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _error_class(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__name__}"


def outage_response(exc: BaseException, *, path: str = "") -> HttpResponse | None:
    """The 503 answer for an outage, or None when `exc` is not one. A plain `JsonResponse`: DRF returns it
    as is from its exception handler, and middleware can return it too."""
    if not is_outage(exc):
        return None
    log.warning("api.outage path=%s error_class=%s", path, _error_class(exc))
    response = JsonResponse({"code": OUTAGE_CODE, "detail": OUTAGE_DETAIL}, status=503)
    response["Retry-After"] = str(retry_after_s())
    response["Cache-Control"] = "no-store"
    return response


class OutageMiddleware:
    """Outage errors raised outside DRF's exception handler, on /api/ paths, become the JSON 503.

    Put it first in MIDDLEWARE. Errors from the view are caught in `process_exception`; errors from inner
    middleware have already been turned into a 500 page by Django when they reach us, so the exception is
    noted on the request (the `got_request_exception` signal) and the page is replaced here."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        exc = getattr(request, "_cs_outage", None)
        if exc is not None and response.status_code >= 500 and request.path.startswith(API_PREFIX):
            return outage_response(exc, path=request.path) or response
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if request.path.startswith(API_PREFIX):
            return outage_response(exception, path=request.path)
        return None


def note_request_exception(sender: object, request: HttpRequest | None = None, **kwargs: object) -> None:
    """`got_request_exception` receiver (connected in CommonConfig.ready): remember an outage on the request."""
    exc = sys.exc_info()[1]
    if request is not None and is_outage(exc):
        request._cs_outage = exc


class FailOpenThrottleMixin:
    """A throttle whose cache is unreachable lets the request through (and logs it) instead of failing it."""

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except OUTAGE_ERRORS as exc:
            log.warning("api.throttle_fail_open scope=%s error_class=%s", getattr(self, "scope", ""), _error_class(exc))
            return True

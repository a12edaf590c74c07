"""What every `/api/` view shares: the error shape, permissions, throttles and the user-as-login-name field.

Every API error, 400 to 500, is JSON `{"code": <stable English code>, "detail": <Korean message>}`.
Validation errors (400, code `invalid`) add `errors`: DRF's per-field messages. Errors raised inside a DRF
view are shaped by `exception_handler`; everything else under /api/ (unknown URLs, oversize bodies, a crash
outside a view) by `common.middleware.ApiErrorMiddleware`, which uses the same `error_body`.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from common.errors import DomainError, InvalidState, NotFound, PermissionDenied, RateLimited
from common.outage import FailOpenThrottleMixin, outage_response

log = logging.getLogger(__name__)

STATUS_BY_ERROR = {NotFound: 404, PermissionDenied: 403, InvalidState: 409, RateLimited: 429}

# Fallback code and Korean message per HTTP status, for errors that carry neither.
STATUS_ERRORS: dict[int, tuple[str, str]] = {
    400: ("bad_request", "잘못된 요청입니다."),
    401: ("not_authenticated", "로그인이 필요합니다."),
    403: ("permission_denied", "권한이 없습니다."),
    404: ("not_found", "요청한 주소나 대상을 찾을 수 없습니다."),
    405: ("method_not_allowed", "허용되지 않는 요청 방식입니다."),
    406: ("not_acceptable", "요청한 응답 형식을 제공할 수 없습니다."),
    409: ("conflict", "현재 상태에서는 처리할 수 없습니다."),
    413: ("payload_too_large", "요청 본문이 너무 큽니다."),
    415: ("unsupported_media_type", "지원하지 않는 본문 형식입니다."),
    429: ("throttled", "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요."),
    500: ("server_error", "일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요."),
    503: ("unavailable", "서비스를 잠시 사용할 수 없습니다. 잠시 후 다시 시도해 주세요."),
}


class FieldConflict(exceptions.ValidationError):
    """Field errors that the current state causes, not the request (409): the same request succeeds once the
    state changes (e.g. the shop sends the product an order names). Answered like a validation error, with
    `errors` per field, under its own code."""

    status_code = status.HTTP_409_CONFLICT

    def __init__(self, fields: dict, *, code: str) -> None:
        super().__init__(fields)
        self.error_code = code


def error_body(status_code: int, code: str | None = None, detail: str | None = None) -> dict:
    fallback_code, fallback_detail = STATUS_ERRORS.get(
        status_code, STATUS_ERRORS[500] if status_code >= 500 else STATUS_ERRORS[400]
    )
    return {"code": code or fallback_code, "detail": detail or fallback_detail}


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER. Each step answers or passes (None); the last one always answers. An outage
    (database, Redis, broker) is a JSON 503 with Retry-After (common/outage.py), not a 500."""
    return (
        _domain_error(exc)
        or _request_too_large(exc)
        or _framework_error(exc, context)
        or _outage_error(exc, context)
        or _unexpected_error(exc, context)
    )


def _request_too_large(exc) -> Response | None:
    """Django refuses to read a query string or form with more than DATA_UPLOAD_MAX_NUMBER_FIELDS fields (any
    DRF view reads the query string), or a body past DATA_UPLOAD_MAX_MEMORY_SIZE: the client's request was too
    big, not a crash (no traceback, no ERROR log)."""
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        set_rollback()
        log.warning("api.request_refused reason=too_many_fields error_class=%s", type(exc).__name__)
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        detail = f"요청에 담긴 항목(쿼리 매개변수·폼 필드)이 너무 많습니다. 최대 {limit:,}개까지 보낼 수 있습니다."
        return Response(error_body(400, "too_many_fields", detail), status=400)
    if isinstance(exc, RequestDataTooBig):
        set_rollback()
        log.warning("api.request_refused reason=payload_too_large")
        return Response(error_body(413), status=413)
    return None


def _outage_error(exc, context) -> Response | None:
    response = outage_response(exc, path=getattr(context.get("request"), "path", ""))
    if response is not None:
        set_rollback()
    return response


def _domain_error(exc) -> Response | None:
    if not isinstance(exc, DomainError):
        return None
    code = next((s for cls, s in STATUS_BY_ERROR.items() if isinstance(exc, cls)), status.HTTP_400_BAD_REQUEST)
    set_rollback()
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
    return Response({**exc.data, **error_body(code, exc.code, exc.message)}, status=code, headers=headers)


def _framework_error(exc, context) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(STATUS_ERRORS[404][1])
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(STATUS_ERRORS[403][1])
    response = drf_exception_handler(exc, context)  # status, headers (WWW-Authenticate, Retry-After), rollback
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = response.data if isinstance(response.data, dict) else {"non_field_errors": response.data}
        code = getattr(exc, "error_code", "invalid")
        response.data = {**error_body(response.status_code, code, _first_message(errors)), "errors": errors}
    elif isinstance(exc, exceptions.Throttled):
        wait = f" {int(exc.wait)}초 후" if exc.wait is not None else " 잠시 후"
        response.data = error_body(429, "throttled", f"요청이 너무 많습니다.{wait} 다시 시도해 주세요.")
    else:
        codes = exc.get_codes()
        detail = exc.detail if isinstance(exc.detail, str) else None
        response.data = error_body(response.status_code, codes if isinstance(codes, str) else None, detail)
    return response


def _unexpected_error(exc, context) -> Response:
    view = context.get("view")
    log.exception(
        "api.unhandled_error view=%s error_class=%s", type(view).__name__ if view else "-", type(exc).__name__
    )
    set_rollback()
    return Response(error_body(500), status=500)


def _first_message(errors: object) -> str:
    """One readable line for `detail`: the first field's first message, prefixed with the field name."""
    if isinstance(errors, dict):
        for field, value in errors.items():
            message = _first_message(value)
            return message if field == "non_field_errors" else f"{field}: {message}"
    if isinstance(errors, list) and errors:
        return _first_message(errors[0])
    return str(errors) if errors else STATUS_ERRORS[400][1]


class IsCustomer(BasePermission):
    """Signed in and linked to a customer record; `request.customer` is set for the view."""

    message = "고객 계정으로 로그인해야 합니다."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        customer = getattr(user, "customer", None)
        if customer is None:
            return False
        request.customer = customer
        return True


class IsStaff(BasePermission):
    """Staff endpoints (`/api/ops/`): an active staff user holding every Django permission the view names in
    `required_permissions` (the view permissions of what it shows, `drafts.review` / `actions.decide` for what it
    changes). `is_staff` alone reads nothing; a view that names no permissions is closed to everyone but
    superusers. Services check their own permission again.

    Anonymous requests get DRF's 401; signed-in users without the permissions a 403 `permission_denied`."""

    message = "이 작업에 필요한 운영자 권한이 없습니다."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False  # DRF answers 401 (not authenticated)
        required = getattr(view, "required_permissions", None)
        if user.is_active and user.is_staff and (user.is_superuser or (required and user.has_perms(required))):
            return True
        raise PermissionDenied(self.message, code="permission_denied")


class CustomerThrottle(FailOpenThrottleMixin, UserRateThrottle):
    """Per signed-in user (one customer per user) rather than per IP. Fails open when its cache is down."""

    scope = "customer"


class ChatThrottle(FailOpenThrottleMixin, UserRateThrottle):
    scope = "chat"


class TicketMessageThrottle(FailOpenThrottleMixin, UserRateThrottle):
    """Follow-ups on tickets: each one reopens the ticket and asks for a new draft (several model calls)."""

    scope = "ticket_message"


class UsernameField(serializers.CharField):
    """A user foreign key (who decided, who is assigned) shown as that user's login name; null when nobody is."""

    def __init__(self, user_field: str, **kwargs):
        super().__init__(source=f"{user_field}.get_username", default=None, allow_null=True, **kwargs)

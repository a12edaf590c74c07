from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from common.errors import DomainError, InvalidState, NotFound, PermissionDenied
from common.outage import FailOpenThrottleMixin, outage_response

STATUS_BY_ERROR = {NotFound: 404, PermissionDenied: 403, InvalidState: 409}


def exception_handler(exc, context):
    """Domain errors become one JSON shape: {"code": ..., "detail": Korean message}."""
    if isinstance(exc, DomainError):
        code = next((s for cls, s in STATUS_BY_ERROR.items() if isinstance(exc, cls)), status.HTTP_400_BAD_REQUEST)
        return Response({"code": exc.code, "detail": exc.message}, status=code)
    outage = outage_response(exc, path=getattr(context.get("request"), "path", ""))
    if outage is not None:  # a database/Redis/broker outage: JSON 503 with Retry-After (common/outage.py)
        return outage
    return drf_exception_handler(exc, context)


from rest_framework.permissions import BasePermission, IsAdminUser  # noqa: E402
from rest_framework.throttling import UserRateThrottle  # noqa: E402


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


class IsStaff(IsAdminUser):
    """Staff-only endpoints (`/api/ops/`): each decision is also checked against the operator's permission
    by its service."""

    message = "운영자 계정으로만 사용할 수 있습니다."


class CustomerThrottle(FailOpenThrottleMixin, UserRateThrottle):
    """Per signed-in user (one customer per user) rather than per IP. Fails open when its cache is down."""

    scope = "customer"


class ChatThrottle(FailOpenThrottleMixin, UserRateThrottle):
    scope = "chat"

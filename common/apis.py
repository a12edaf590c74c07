from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from common.errors import DomainError, InvalidState, NotFound, PermissionDenied

STATUS_BY_ERROR = {NotFound: 404, PermissionDenied: 403, InvalidState: 409}


def exception_handler(exc, context):
    """Domain errors become one JSON shape: {"code": ..., "detail": Korean message}."""
    if isinstance(exc, DomainError):
        code = next((s for cls, s in STATUS_BY_ERROR.items() if isinstance(exc, cls)), status.HTTP_400_BAD_REQUEST)
        return Response({"code": exc.code, "detail": exc.message}, status=code)
    return drf_exception_handler(exc, context)


from rest_framework.permissions import BasePermission  # noqa: E402
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


class CustomerThrottle(UserRateThrottle):
    """Per signed-in user (one customer per user) rather than per IP."""

    scope = "customer"


class ChatThrottle(UserRateThrottle):
    scope = "chat"

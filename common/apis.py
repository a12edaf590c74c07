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

from __future__ import annotations

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission

from integration.services.access import integration_by_api_key


class IntegrationPrincipal:
    """request.user on integration endpoints: authenticated, never staff, no Django permissions."""

    is_authenticated = True
    is_active = True
    is_staff = False
    is_superuser = False
    pk = None

    def __init__(self, integration) -> None:
        self.integration = integration

    def has_perm(self, perm, obj=None) -> bool:
        return False

    def get_username(self) -> str:
        return f"integration:{self.integration.name}"


class IntegrationKeyAuthentication(BaseAuthentication):
    """`Authorization: Bearer <api_key>`; request.auth is the Integration."""

    keyword = b"bearer"

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("API 키 형식이 올바르지 않습니다.", code="api_key_invalid")
        integration = integration_by_api_key(parts[1].decode("latin-1"))
        if integration is None:
            raise AuthenticationFailed("유효하지 않은 API 키입니다.", code="api_key_invalid")
        return IntegrationPrincipal(integration), integration

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="integration"'


class IsIntegration(BasePermission):
    message = "연동 API 키가 필요합니다."

    def has_permission(self, request, view) -> bool:
        if not isinstance(request.user, IntegrationPrincipal):
            return False
        request.integration = request.user.integration
        return True

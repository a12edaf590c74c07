"""What an integration may do: the key it signs in with, the secret it signs with, its scopes and the
browser origins its widget may call from."""

from __future__ import annotations

import hmac

from common.errors import PermissionDenied
from integration import policy
from integration.models import Integration
from integration.secrets import secret_decrypt


def integration_by_api_key(api_key: str) -> Integration | None:
    """The active integration whose key this is. The lookup is by hash (an index), and the stored hash is
    compared again in constant time."""
    digest = policy.api_key_hash(api_key)
    integration = Integration.objects.filter(api_key_hash=digest, active=True).first()
    if integration is None or not hmac.compare_digest(integration.api_key_hash, digest):
        return None
    return integration


def integration_signing_secret(integration: Integration) -> str:
    return secret_decrypt(integration.signing_secret_encrypted)


def integration_require_scope(integration: Integration, scope: str) -> None:
    if scope not in (integration.scopes or []):
        raise PermissionDenied(f"이 연동에는 '{scope}' 권한이 없습니다.")


def origin_allowed_for(integration_name: str, origin: str) -> bool:
    integration = Integration.objects.filter(name=str(integration_name), active=True).first()
    return integration is not None and policy.origin_allowed(origin, integration.allowed_origins)


def origin_allowed_anywhere(origin: str) -> bool:
    return any(
        policy.origin_allowed(origin, origins)
        for origins in Integration.objects.filter(active=True).values_list("allowed_origins", flat=True)
    )

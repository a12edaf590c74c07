"""An integration's life: created with its key and signing secret (shown once), its settings changed by an
operator (switching it back on releases the webhook deliveries held while it was paused)."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from common.actors import Actor
from common.outbox import (
    outbox_release,
)
from integration import policy
from integration.errors import InvalidInput
from integration.models import Integration
from integration.secrets import secret_encrypt
from integration.services.webhooks import held_deliveries

log = logging.getLogger(__name__)


ALL_SCOPES = [s.value for s in Integration.Scope]


@dataclass(frozen=True)
class IssuedIntegration:
    integration: Integration
    api_key: str  # shown once
    signing_secret: str  # shown once


def integration_create(
    *,
    name: str,
    webhook_url: str = "",
    scopes: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    actor: Actor,
) -> IssuedIntegration:
    scopes = list(scopes) if scopes else list(ALL_SCOPES)
    _settings_checked(webhook_url=webhook_url, scopes=scopes)
    api_key = "csk_" + secrets.token_urlsafe(32)
    signing_secret = "whsec_" + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            integration = Integration.objects.create(
                name=name,
                api_key_prefix=api_key[:12],
                api_key_hash=policy.api_key_hash(api_key),
                signing_secret_encrypted=secret_encrypt(signing_secret),
                webhook_url=webhook_url,
                scopes=scopes,
                allowed_origins=list(allowed_origins or []),
            )
    except IntegrityError:
        raise InvalidInput({"name": ["같은 이름의 연동이 이미 있습니다."]}) from None
    log.info("integration.created integration=%s actor=%s", integration.name, actor.type)
    return IssuedIntegration(integration, api_key, signing_secret)


def integration_webhook_url_problem(url: str) -> str | None:
    """Why webhooks may not go to `url` under this deployment's settings (a Korean message), or None. Checked
    when an integration is created or edited; what counts is the check at each connection (integration.outbound)."""
    if len(url or "") > Integration._meta.get_field("webhook_url").max_length:
        return "웹훅 URL이 너무 깁니다(500자 이하)."
    return policy.webhook_url_problem(url or "", allow_private=bool(settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS))


def _settings_checked(*, webhook_url: str, scopes: list[str]) -> None:
    errors: dict[str, list[str]] = {}
    problem = integration_webhook_url_problem(webhook_url)
    if problem:
        errors["webhook_url"] = [problem]
    unknown = sorted(set(scopes) - set(ALL_SCOPES))
    if unknown:
        errors["scopes"] = [f"알 수 없는 권한: {', '.join(unknown)}"]
    if errors:
        raise InvalidInput(errors)


def integration_update(
    *,
    integration: Integration,
    webhook_url: str,
    scopes: list[str],
    allowed_origins: list[str],
    active: bool,
    actor: Actor,
) -> Integration:
    """What an operator may change on an integration (the admin form). Switching it back on releases the
    webhook deliveries held while it was paused. Raises InvalidInput (nothing changed)."""
    scopes = list(scopes or [])
    _settings_checked(webhook_url=webhook_url, scopes=scopes)
    with transaction.atomic():
        locked = Integration.objects.select_for_update().get(pk=integration.pk)
        resumed = active and not locked.active
        locked.webhook_url = webhook_url
        locked.scopes = scopes
        locked.allowed_origins = list(allowed_origins or [])
        locked.active = active
        locked.save(update_fields=["webhook_url", "scopes", "allowed_origins", "active"])
        # What waited for the shop while it was paused (its refunds' events among them) goes out now.
        released = outbox_release(message_ids=held_deliveries([locked.pk])) if resumed else 0
    log.info(
        "integration.updated integration=%s active=%s released=%d actor=%s",
        locked.name,
        locked.active,
        released,
        actor.type,
    )
    return locked

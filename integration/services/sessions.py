"""Customers arrive signed in: a shop-signed session exchanged for a customer token, and the check that keeps
such tokens valid only while their integration is active."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.services import token_issue
from common.errors import PermissionDenied
from integration import policy
from integration.models import Integration, ShopSessionUse
from integration.services.access import integration_signing_secret
from integration.services.sync import owned_record
from orders.models import Customer

log = logging.getLogger(__name__)


# Tokens from a shop's signed session carry "integration:<pk>" (accounts/issuers.py): they are accepted only while
# that integration is active, and again once it is reactivated.
TOKEN_ISSUER = "integration"
SHOP_PAUSED_CODE = "shop_paused"
SHOP_PAUSED_MESSAGE = "이 쇼핑몰의 상담 연결이 잠시 중지되었습니다. 쇼핑몰에서 다시 접속해 주세요."


def integration_vouches(reference: str) -> bool:
    """The token check registered for TOKEN_ISSUER: the integration exists and is active (one indexed query)."""
    return (
        reference.isascii()
        and reference.isdigit()
        and Integration.objects.filter(pk=int(reference), active=True).exists()
    )


def shop_session_open(*, integration_name: str, customer_id: str, expires_at: int, signature: str):
    """Exchange a shop-signed (customer_id, expires_at) for a customer token. Refused: an unknown or inactive
    integration, a wrong signature, an expiry in the past or too far ahead, a signature already used, a
    customer this integration does not own. Returns (AuthToken, key)."""
    integration = Integration.objects.filter(name=integration_name, active=True).first()
    refused = PermissionDenied("쇼핑몰 로그인 정보를 확인할 수 없습니다.", code="shop_session_refused")
    if integration is None or not isinstance(signature, str):
        raise refused
    secret = integration_signing_secret(integration)
    if not policy.session_signature_ok(secret, customer_id, expires_at, signature):
        raise refused
    now = int(time.time())
    if expires_at <= now or expires_at > now + int(settings.CS_SHOP_SESSION_MAX_AHEAD_S):
        raise refused
    if owned_record(integration, "customer", customer_id) is None:
        raise refused
    with transaction.atomic():
        ShopSessionUse.objects.filter(expires_at__lt=timezone.now()).delete()
        try:
            with transaction.atomic():
                ShopSessionUse.objects.create(
                    integration=integration,
                    signature=signature.lower(),
                    expires_at=datetime.fromtimestamp(expires_at, tz=UTC),
                )
        except IntegrityError:
            raise refused from None
        customer = Customer.objects.select_for_update().get(pk=customer_id)
        if customer.user is None:
            User = get_user_model()
            user, _ = User.objects.get_or_create(username=f"shop-{integration.pk}-{customer_id}")
            user.set_unusable_password()
            user.save()
            customer.user = user
            customer.save(update_fields=["user"])
        token, key = token_issue(user=customer.user, actor=customer.user, issuer=f"{TOKEN_ISSUER}:{integration.pk}")
    log.info("shop_session.opened integration=%s", integration.name)
    return token, key

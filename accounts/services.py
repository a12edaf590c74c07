"""Login tokens: issue at login, revoke at logout, drop when expired or issued under an older password."""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts import policy
from accounts.models import AuthToken
from common.actors import Person

log = logging.getLogger(__name__)


def token_ttl() -> timedelta:
    return timedelta(hours=settings.CS_AUTH_TOKEN_TTL_HOURS)


def password_fingerprint(user: Person) -> str:
    """Changes whenever the password does (set_password, the admin's form, `changepassword`)."""
    return user.get_session_auth_hash()


def password_fingerprint_matches(user: Person, fingerprint: str) -> bool:
    """As Django checks a session's hash: the current SECRET_KEY or one of SECRET_KEY_FALLBACKS, so rotating the
    key does not sign everyone out."""
    if constant_time_compare(fingerprint, password_fingerprint(user)):
        return True
    return any(
        constant_time_compare(fingerprint, user._get_session_auth_hash(secret=secret))
        for secret in settings.SECRET_KEY_FALLBACKS
    )


@transaction.atomic
def token_issue(*, user: Person, actor: Person, issuer: str = "") -> tuple[AuthToken, str]:
    """A new token for a successful login; returns it with its key (shown once, never stored). `issuer`: who
    vouched for the login when no password did ("integration:<pk>"); see accounts/issuers.py.

    Other devices keep their tokens (a customer may be signed in on a phone and a laptop), up to
    CS_AUTH_TOKENS_PER_USER live ones: the oldest beyond that, expired ones and ones issued under an older
    password are deleted here.
    """
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one login at a time per user
    now = timezone.now()
    current = password_fingerprint(user)
    existing = [
        (t.pk, t.created_at, t.password_fingerprint == current)
        for t in AuthToken.objects.filter(user=user)
        .order_by("-created_at", "-id")
        .only("pk", "created_at", "password_fingerprint")
    ]
    drop = policy.tokens_to_drop(existing, now=now, ttl=token_ttl(), keep=settings.CS_AUTH_TOKENS_PER_USER - 1)
    if drop:
        AuthToken.objects.filter(pk__in=drop).delete()
    key = secrets.token_hex(20)
    token = AuthToken.objects.create(
        digest=policy.token_digest(key), user=user, created_at=now, password_fingerprint=current, issuer=issuer
    )
    log.info(
        "auth.token_issued user_id=%s token_id=%s dropped=%d issuer=%s actor_id=%s",
        user.pk,
        token.pk,
        len(drop),
        issuer or "-",
        actor.pk,
    )
    return token, key


def token_revoke(*, token: AuthToken, actor: Person | None) -> None:
    """Logout (actor: the user) or an expired token found at use (actor None: the system). Idempotent."""
    deleted, _ = AuthToken.objects.filter(pk=token.pk).delete()
    if deleted:
        log.info(
            "auth.token_revoked user_id=%s token_id=%s actor_id=%s",
            token.user_id,
            token.pk,
            getattr(actor, "pk", None),
        )


def user_tokens_revoke(*, user: Person, actor: Person | None, stale_only: bool = False) -> int:
    """Every token of the user, or (`stale_only`) those issued under a password the user no longer has."""
    tokens = AuthToken.objects.filter(user=user)
    if stale_only:
        tokens = tokens.exclude(password_fingerprint=password_fingerprint(user))
    deleted, _ = tokens.delete()
    if deleted:
        log.info("auth.tokens_revoked user_id=%s count=%d actor_id=%s", user.pk, deleted, getattr(actor, "pk", None))
    return deleted


def tokens_purge_expired(*, actor: Person | None) -> int:
    """Housekeeping (`manage.py auth_tokens_purge`): delete tokens past their lifetime. Expired tokens already
    refuse to authenticate; this only keeps the table small for users who never come back."""
    deleted, _ = AuthToken.objects.filter(created_at__lte=timezone.now() - token_ttl()).delete()
    log.info("auth.tokens_purged count=%d actor_id=%s", deleted, getattr(actor, "pk", None))
    return deleted

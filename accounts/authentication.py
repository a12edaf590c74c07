"""`Authorization: Token <key>` for the API, with expiry and password-change revocation."""

from __future__ import annotations

from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from accounts import policy
from accounts.issuers import token_issuer_refusal
from accounts.selectors import token_get
from accounts.services import password_fingerprint_matches, token_revoke, token_ttl, user_tokens_revoke


class ExpiringTokenAuthentication(TokenAuthentication):
    """A token is valid for CS_AUTH_TOKEN_TTL_HOURS after login, only under the password it was issued with, and,
    when another party vouched for it (a shop's signed session), only while that party does (accounts/issuers.py).
    Failures answer 401 (the chat page then asks to log in again)."""

    def authenticate_credentials(self, key: str):
        token = token_get(key=key)
        if token is None:
            raise AuthenticationFailed("유효하지 않은 토큰입니다. 다시 로그인해 주세요.", code="token_invalid")
        if policy.token_is_expired(created_at=token.created_at, now=timezone.now(), ttl=token_ttl()):
            token_revoke(token=token, actor=None)
            raise AuthenticationFailed("로그인이 만료되었습니다. 다시 로그인해 주세요.", code="token_expired")
        refusal = token_issuer_refusal(token.issuer)
        if refusal is not None:  # not revoked: the same token works again once its issuer (a paused shop) is back
            raise AuthenticationFailed(refusal.message, code=refusal.code)
        user = token.user
        if not user.is_active:
            raise AuthenticationFailed("사용할 수 없는 계정입니다.", code="user_inactive")
        if not password_fingerprint_matches(user, token.password_fingerprint):
            user_tokens_revoke(user=user, actor=None, stale_only=True)
            raise AuthenticationFailed("비밀번호가 바뀌어 다시 로그인해야 합니다.", code="token_revoked")
        return user, token

from __future__ import annotations

from accounts import policy
from accounts.models import AuthToken


def token_get(*, key: str) -> AuthToken | None:
    """The token for a presented key, with its user, in one query."""
    return AuthToken.objects.select_related("user").filter(digest=policy.token_digest(key)).first()

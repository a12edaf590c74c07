"""Login names match case-insensitively: the screens show customer ids as C003, and `C003`, `c003` and
`c003 ` all sign in as the account `c003`. The database keeps them unique that way too (migration
accounts/0002: a unique index on LOWER(username)), so no two accounts differ only in case."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


def normalise_username(username: str | None) -> str:
    return (username or "").strip().lower()


def axes_username(request, credentials: dict) -> str:
    """django-axes counts failures per this name (AXES_USERNAME_CALLABLE): one count for C003 and c003."""
    return normalise_username((credentials or {}).get("username"))


class CaseInsensitiveModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        user_model = get_user_model()
        if username is None:
            username = kwargs.get(user_model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = user_model._default_manager.filter(username__iexact=normalise_username(username)).first()
        if user is None:
            user_model().set_password(password)  # the same work as a wrong password (timing)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None

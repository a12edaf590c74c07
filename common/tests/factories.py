"""Users for tests that do not care which demo login acts."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Permission


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    class Params:
        login_password = None  # set for a user who signs in through a login form or the token API

    username = factory.Sequence(lambda n: f"user{n}")
    is_active = True
    password = factory.LazyAttribute(lambda o: "" if o.login_password is None else make_password(o.login_password))


def operator_with(*perms: str, **fields):
    """A staff user holding `perms` ("app_label.codename")."""
    user = UserFactory(is_staff=True, **fields)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return get_user_model().objects.get(pk=user.pk)  # fresh: no cached permissions


def superuser(**fields):
    """A staff superuser: the admin pages with every permission, where which permission is not the point."""
    return UserFactory(is_staff=True, is_superuser=True, **fields)

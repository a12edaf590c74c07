"""Users for tests that do not care which demo login acts."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    is_active = True


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

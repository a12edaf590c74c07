"""The token lookup on every request: one query, no SQL compiled per request, and never stale."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db.models.sql.compiler import SQLCompiler
from rest_framework.test import APIClient

from accounts.selectors import token_get
from accounts.services import token_issue
from testsupport.counting import calls_counted

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return get_user_model().objects.create_user(username="lookup-user", password="pw-한국어-1234")


def test_the_lookup_returns_the_token_and_its_user_and_nothing_for_an_unknown_key(user):
    token, key = token_issue(user=user, actor=user)
    found = token_get(key=key)
    assert (found.pk, found.user_id, found.digest, found.user.username) == (
        token.pk,
        user.pk,
        token.digest,
        user.username,
    )
    assert found.user.password == user.password and found.created_at == token.created_at
    assert token_get(key=key + "x") is None


def test_a_request_compiles_no_sql_for_the_lookup(user, django_assert_num_queries):
    _, key = token_issue(user=user, actor=user)
    token_get(key=key)  # the first lookup of the process may compile it once
    with calls_counted(SQLCompiler.as_sql) as counts, django_assert_num_queries(1):
        assert token_get(key=key) is not None
    assert counts["SQLCompiler.as_sql"] == 0


def test_a_revoked_token_is_refused_at_once(user):
    token, key = token_issue(user=user, actor=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/ping/").status_code == 200
    token.delete()
    assert client.get("/api/ping/").status_code == 401


def test_a_changed_password_ends_the_token_at_once(user):
    _, key = token_issue(user=user, actor=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/ping/").status_code == 200
    user.set_password("another-pw-5678")
    user.save()
    assert client.get("/api/ping/").status_code == 401

"""Tokens another party vouched for (a shop's signed session) are checked with that party at every use: refused
while it does not stand behind them, accepted again when it does. Password logins are never asked."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts import issuers
from accounts.models import AuthToken
from accounts.services import token_issue

KIND = "test-vouch"


@pytest.fixture
def vouching():
    state = {"on": True, "asked": []}

    def check(reference: str) -> bool:
        state["asked"].append(reference)
        return state["on"]

    issuers.token_issuer_register(KIND, check=check, code="test_paused", message="잠시 쓸 수 없습니다.")
    yield state
    issuers._issuers.pop(KIND, None)


@pytest.mark.parametrize(
    ("issuer", "refusal"),
    [
        ("", None),
        ("nobody:1", issuers.UNKNOWN),
        ("nobody", issuers.UNKNOWN),
    ],
)
def test_a_password_login_passes_and_an_issuer_nobody_vouches_for_is_refused(issuer, refusal):
    assert issuers.token_issuer_refusal(issuer) == refusal


def test_a_registered_issuer_is_asked_about_its_own_reference(vouching):
    assert issuers.token_issuer_refusal(f"{KIND}:7") is None
    vouching["on"] = False
    assert issuers.token_issuer_refusal(f"{KIND}:7") == issuers.IssuerRefusal("test_paused", "잠시 쓸 수 없습니다.")
    assert vouching["asked"] == ["7", "7"]


@pytest.mark.django_db
def test_a_vouched_token_is_refused_while_its_issuer_withdraws_and_works_again_after(vouching):
    user = get_user_model().objects.create_user("vouched")
    _, key = token_issue(user=user, actor=user, issuer=f"{KIND}:42")
    _, password_key = token_issue(user=user, actor=user)
    client, password_client = APIClient(), APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    password_client.credentials(HTTP_AUTHORIZATION=f"Token {password_key}")
    assert client.get("/api/ping/").status_code == 200

    vouching["on"] = False
    refused = client.get("/api/ping/")

    assert refused.status_code == 401 and refused.json() == {"code": "test_paused", "detail": "잠시 쓸 수 없습니다."}
    assert AuthToken.objects.filter(user=user).count() == 2  # kept: nothing to log in again for
    assert password_client.get("/api/ping/").status_code == 200
    assert vouching["asked"] == ["42", "42"]  # only the vouched token is checked
    vouching["on"] = True
    assert client.get("/api/ping/").status_code == 200

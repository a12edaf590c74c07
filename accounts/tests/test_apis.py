"""Login tokens through the real API: a new token per login, expiry, logout, password-change revocation."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.test import APIClient

from accounts.models import AuthToken
from common.tests.factories import superuser

pytestmark = pytest.mark.django_db

LOGIN = "/api/auth/token/"
LOGOUT = "/api/auth/logout/"
PASSWORD = "demo1234"


@pytest.fixture
def kim(customer):
    """The customer (the root conftest's: this app may not import the orders factories) signing in as `kim`."""
    customer.user.username = "kim"
    customer.user.set_password(PASSWORD)
    customer.user.save()
    return customer


def _login(username="kim", password=PASSWORD, address="10.1.0.1"):
    return APIClient().post(LOGIN, {"username": username, "password": password}, format="json", REMOTE_ADDR=address)


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _age(by: timedelta) -> None:
    """Move a token's issue time into the past: how expiry is tested without waiting."""
    AuthToken.objects.filter(user__username="kim").update(created_at=timezone.now() - by)


def test_login_issues_a_token_that_expires_after_the_configured_ttl(kim, settings):
    settings.CS_AUTH_TOKEN_TTL_HOURS = 12
    before = timezone.now()
    response = _login()
    assert response.status_code == 200, response.content
    body = response.json()
    # display_name and customer_id are what the chat page greets the customer with; nothing else is returned.
    assert set(body) == {"token", "expires_at", "display_name", "customer_id"}
    expires_at = parse_datetime(body["expires_at"])
    assert before + timedelta(hours=12) <= expires_at <= timezone.now() + timedelta(hours=12)
    assert _client(body["token"]).get("/api/orders/").status_code == 200
    # Only the digest is stored: the key itself is nowhere in the database.
    token = AuthToken.objects.get(user__username="kim")
    assert body["token"] not in token.digest and len(token.digest) == 64


def test_expired_token_answers_401_token_expired_and_is_deleted(kim, settings):
    settings.CS_AUTH_TOKEN_TTL_HOURS = 1
    key = _login().json()["token"]
    _age(timedelta(minutes=59))
    assert _client(key).get("/api/orders/").status_code == 200
    _age(timedelta(minutes=60, seconds=1))
    response = _client(key).get("/api/orders/")
    assert response.status_code == 401
    assert "만료" in response.json()["detail"]
    assert not AuthToken.objects.filter(user__username="kim").exists()
    # The TTL is read at use: lengthening it does not revive a deleted token, but a new login works.
    assert _client(_login().json()["token"]).get("/api/orders/").status_code == 200


def test_every_login_issues_a_new_token_and_other_devices_stay_signed_in(kim, settings):
    settings.CS_AUTH_TOKENS_PER_USER = 3
    keys = [_login().json()["token"] for _ in range(3)]
    assert len(set(keys)) == 3
    assert all(_client(k).get("/api/orders/").status_code == 200 for k in keys)
    fourth = _login().json()["token"]  # over the cap: the oldest device is signed out
    assert [_client(k).get("/api/orders/").status_code for k in [*keys, fourth]] == [401, 200, 200, 200]
    assert AuthToken.objects.filter(user__username="kim").count() == 3


def test_logout_revokes_only_the_presented_token(kim):
    phone, laptop = _login().json()["token"], _login().json()["token"]
    response = _client(phone).post(LOGOUT)
    assert response.status_code == 204
    assert _client(phone).get("/api/orders/").status_code == 401
    assert _client(phone).post(LOGOUT).status_code == 401  # already revoked
    assert _client(laptop).get("/api/orders/").status_code == 200
    assert AuthToken.objects.filter(user__username="kim").count() == 1


def test_logout_needs_a_token(kim, client):
    assert APIClient().post(LOGOUT).status_code == 401
    client.force_login(get_user_model().objects.get(username="kim"))  # a session is not a token
    assert client.post(LOGOUT).status_code == 401


def test_password_change_by_set_password_revokes_every_token(kim):
    keys = [_login().json()["token"] for _ in range(2)]
    user = get_user_model().objects.get(username="kim")
    user.set_password("새 비밀번호-2026!")
    user.save()
    for key in keys:
        response = _client(key).get("/api/orders/")
        assert response.status_code == 401
    assert not AuthToken.objects.filter(user=user).exists()  # the first refusal deleted every stale token
    assert _login(password=PASSWORD).status_code == 400
    fresh = _login(password="새 비밀번호-2026!").json()["token"]
    assert _client(fresh).get("/api/orders/").status_code == 200


def test_password_change_in_the_admin_revokes_the_customers_tokens(kim, client):
    key = _login().json()["token"]
    user = get_user_model().objects.get(username="kim")
    client.force_login(superuser())
    response = client.post(
        f"/admin/auth/user/{user.pk}/password/",
        {"password1": "Another-pass-7391", "password2": "Another-pass-7391", "usable_password": "true"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _client(key).get("/api/orders/").status_code == 401


def test_deactivated_user_token_is_refused(kim):
    key = _login().json()["token"]
    get_user_model().objects.filter(username="kim").update(is_active=False)
    assert _client(key).get("/api/orders/").status_code == 401


def test_a_stale_token_in_the_header_does_not_block_logging_in(kim):
    response = APIClient().post(
        LOGIN,
        {"username": "kim", "password": PASSWORD},
        format="json",
        HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000",
    )
    assert response.status_code == 200


def test_wrong_password_is_400_with_code_and_korean_detail(kim):
    response = _login(password="wrong")
    assert response.status_code == 400
    assert response.json() == {"code": "invalid_credentials", "detail": "아이디 또는 비밀번호가 올바르지 않습니다."}
    assert not AuthToken.objects.exists()


def test_purge_command_deletes_only_expired_tokens(kim, settings):
    settings.CS_AUTH_TOKEN_TTL_HOURS = 12
    old, fresh = _login().json()["token"], _login().json()["token"]
    AuthToken.objects.filter(pk=AuthToken.objects.order_by("id").first().pk).update(
        created_at=timezone.now() - timedelta(hours=12, seconds=1)
    )
    out = StringIO()
    call_command("auth_tokens_purge", stdout=out)
    assert "1개" in out.getvalue()
    assert AuthToken.objects.count() == 1
    assert _client(fresh).get("/api/orders/").status_code == 200
    assert _client(old).get("/api/orders/").status_code == 401

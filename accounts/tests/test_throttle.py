"""Login throttling (django-axes): per username and per address, on the token API and the admin login form,
429 with Retry-After, lifted by time or by `axes_reset_*`."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AuthToken
from common.tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/api/auth/token/"
PASSWORD = "demo1234"


@pytest.fixture
def logins():
    """Four customer logins and a staff one, all with PASSWORD: who they are is not the point, only that the
    token API and the admin login form both know them."""
    for name in ("kim", "lee", "park", "choi"):
        UserFactory(username=name, login_password=PASSWORD)
    UserFactory(username="operator", is_staff=True, login_password=PASSWORD)


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


def _login(username="kim", password=PASSWORD, address="10.2.0.1"):
    return APIClient().post(LOGIN, {"username": username, "password": password}, format="json", REMOTE_ADDR=address)


def _admin_login(client, username="operator", password=PASSWORD, address="10.3.0.1"):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password}, REMOTE_ADDR=address)


def _assert_locked(response, *, seconds: int = 900):
    assert response.status_code == 429, response.content
    assert seconds - 5 <= int(response["Retry-After"]) <= seconds


def test_username_is_locked_after_the_limit_whatever_the_address(logins):
    statuses = [_login(password=f"guess{i}", address=f"10.2.0.{i}").status_code for i in range(1, 5)]
    assert statuses == [400, 400, 400, 400]
    fifth = _login(password="guess5", address="10.2.0.5")  # the failure that reaches the limit
    _assert_locked(fifth)
    assert fifth.json()["code"] == "login_locked" and "분 후" in fifth.json()["detail"]
    # Even the right password, from a fresh address, with the name typed differently: refused, no token.
    _assert_locked(_login(username=" KIM", password=PASSWORD, address="10.2.0.99"))
    assert not AuthToken.objects.exists()
    # Those addresses saw one failure each: another customer logs in from them.
    assert _login(username="lee", address="10.2.0.1").status_code == 200


def test_address_is_locked_after_the_limit_whatever_the_username(logins):
    for name in ("lee", "park", "choi", "nobody", "admin"):
        last = _login(username=name, password="wrong", address="10.9.9.9")
    _assert_locked(last)
    _assert_locked(_login(username="kim", password=PASSWORD, address="10.9.9.9"))
    assert _login(username="kim", password=PASSWORD, address="10.9.9.10").status_code == 200


def test_retry_after_counts_down_and_the_lock_lifts_after_the_cooloff(logins):
    for i in range(5):
        _login(password=f"guess{i}")
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=10))
    _assert_locked(_login(), seconds=300)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    assert _login().status_code == 200


def test_tries_during_a_lockout_do_not_extend_it(logins):
    for i in range(5):
        _login(password=f"guess{i}")
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=10))
    for _ in range(3):
        _assert_locked(_login(password="still guessing"), seconds=300)


@pytest.mark.parametrize(
    ("command", "args"), [("axes_reset", []), ("axes_reset_username", ["kim"]), ("axes_reset_ip", ["10.2.0.1"])]
)
def test_an_operator_unlocks_with_axes_reset(logins, command, args):
    for i in range(5):
        _login(password=f"guess{i}")
    _assert_locked(_login())
    call_command(command, *args)
    assert _login().status_code == 200


def test_admin_login_form_is_throttled_with_429_and_retry_after(logins, client):
    for i in range(4):
        page = _admin_login(client, password=f"guess{i}")
        assert page.status_code == 200 and "<title>오류: 로그인" in page.content.decode()  # the form's own error
    locked = _admin_login(client, password="guess5")
    _assert_locked(locked)
    assert "잠" in locked.content.decode() and "axes_reset_username" in locked.content.decode()
    _assert_locked(_admin_login(client, password=PASSWORD, address="10.3.0.2"))
    assert "_auth_user_id" not in client.session
    # One counter per username across both doors.
    _assert_locked(_login(username="operator", address="10.4.0.1"))


def test_successful_admin_login_below_the_limit(logins, client):
    for i in range(3):
        _admin_login(client, password=f"guess{i}")
    response = _admin_login(client)
    assert response.status_code == 302 and client.session["_auth_user_id"]


def test_forwarded_address_is_counted_behind_a_trusted_proxy(logins, settings):
    settings.CS_TRUSTED_PROXY_COUNT = 1

    def via_proxy(client_address, password="wrong"):
        return APIClient().post(
            LOGIN,
            {"username": f"user-{client_address}-{password}", "password": password},
            format="json",
            REMOTE_ADDR="10.0.0.2",  # the proxy
            HTTP_X_FORWARDED_FOR=f"6.6.6.6, {client_address}",  # a spoofed entry, then the proxy's
        )

    for i in range(5):
        last = via_proxy("203.0.113.7", password=f"p{i}")
    _assert_locked(last)
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.7"}
    # Another client behind the same proxy is not locked out.
    assert via_proxy("203.0.113.8").status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"username": "ki\x00m", "password": "x"},  # NUL: PostgreSQL could not store it in the failure record
        {"username": "kim"},
        {"username": "x" * 151, "password": "x"},
        ["kim", PASSWORD],
    ],
)
def test_malformed_logins_are_400_and_count_nothing(logins, body):
    response = APIClient().post(LOGIN, body, format="json")
    assert response.status_code == 400
    assert not AccessAttempt.objects.exists()

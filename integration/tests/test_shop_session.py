"""Customers arrive signed in: the shop's backend signs (customer_id, expires_at)."""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from accounts.models import AuthToken
from integration import policy
from integration.models import Integration
from integration.tests.factories import CUSTOMER_ID, make_integration, seed_shop
from orders.tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def issued():
    issued = make_integration()
    seed_shop(issued)
    return issued


def _open(issued, *, customer_id=CUSTOMER_ID, expires_at=None, secret=None, integration="myshop", signature=None):
    expires_at = expires_at if expires_at is not None else int(time.time()) + 300
    signature = signature or policy.session_signature(secret or issued.signing_secret, customer_id, expires_at)
    body = {"integration": integration, "customer_id": customer_id, "expires_at": expires_at, "signature": signature}
    return APIClient().post("/api/auth/shop-session/", body, format="json")


def test_a_shop_signed_session_gives_a_customer_token_that_works(issued):
    response = _open(issued)
    assert response.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    orders = client.get("/api/orders/")
    assert orders.status_code == 200 and AuthToken.objects.count() == 1


@pytest.mark.parametrize(
    "case",
    ["wrong_secret", "expired", "too_far_ahead", "other_customer_signature", "unknown_integration", "inactive"],
)
def test_bad_shop_sessions_are_refused(issued, case):
    now = int(time.time())
    kwargs = {
        "wrong_secret": {"secret": "whsec_not_it"},
        "expired": {"expires_at": now - 1},
        "too_far_ahead": {"expires_at": now + 24 * 3600},
        "other_customer_signature": {
            "signature": policy.session_signature(issued.signing_secret, "C003", now + 300),
            "expires_at": now + 300,
        },
        "unknown_integration": {"integration": "nope"},
        "inactive": {},
    }[case]
    if case == "inactive":
        Integration.objects.update(active=False)
    response = _open(issued, **kwargs)
    assert response.status_code == 403 and response.json()["code"] == "shop_session_refused"
    assert not AuthToken.objects.exists()


def test_a_used_signature_is_refused_the_second_time(issued):
    expires_at = int(time.time()) + 300
    assert _open(issued, expires_at=expires_at).status_code == 200
    assert _open(issued, expires_at=expires_at).status_code == 403
    assert AuthToken.objects.count() == 1


def test_a_customer_of_another_integration_or_the_demo_cannot_be_signed_in(issued):
    other = make_integration("other")
    local = CustomerFactory()  # the desk's own customer, as the demo's are: no shop sent it
    assert _open(other, integration="other").status_code == 403  # S900 belongs to myshop
    assert _open(issued, customer_id=local.customer_id).status_code == 403
    assert not AuthToken.objects.exists()

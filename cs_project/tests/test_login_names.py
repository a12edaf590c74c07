"""Sign-in as people expect: the customer id shown (K001) signs in as its login k001, names are unique
regardless of case, failures count once per name whatever its case, and the token answer carries the customer's
name."""

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

from common.tests.factories import UserFactory
from orders.tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db

PASSWORD = "demo1234"


@pytest.fixture
def logins():
    """A customer whose login is their id in lower case, as the shop makes them, and a staff login."""
    UserFactory(username="operator", is_staff=True, login_password=PASSWORD)
    return CustomerFactory(customer_id="K001", name="김고객", user__username="k001", user__login_password=PASSWORD)


@pytest.mark.parametrize("typed", ["k001", "K001", " K001 "])
def test_the_shown_id_signs_in_and_the_answer_greets_by_name(logins, typed):
    response = APIClient().post("/api/auth/token/", {"username": typed, "password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["customer_id"] == "K001" and body["display_name"] == logins.name


def test_staff_answer_has_no_customer(logins):
    body = APIClient().post("/api/auth/token/", {"username": "Operator", "password": PASSWORD}, format="json").json()
    assert (body["customer_id"], body["display_name"]) == (None, "operator")


def test_names_differing_only_in_case_cannot_both_exist(logins):
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user("K001", password="x")


def test_wrong_passwords_count_once_per_name_whatever_the_case(logins, settings):
    client = APIClient()
    for typed in ["k001", "K001", "k001", "K001", "K001"]:
        client.post("/api/auth/token/", {"username": typed, "password": "wrong"}, format="json")
    locked = client.post("/api/auth/token/", {"username": "k001", "password": PASSWORD}, format="json")
    assert locked.status_code == 429 and locked.json()["code"] == "login_locked"

"""Sign-in as people expect: the id shown as C003 signs in as c003, names are unique regardless of
case, failures count once per name whatever its case, and the token answer carries the customer's name."""

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("typed", ["c003", "C003", " C003 "])
def test_the_shown_id_signs_in_and_the_answer_greets_by_name(shop, typed):
    response = APIClient().post("/api/auth/token/", {"username": typed, "password": "demo1234"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["customer_id"] == "C003" and body["display_name"] == shop_customer_name("C003")


def shop_customer_name(customer_id):
    from orders.models import Customer

    return Customer.objects.get(pk=customer_id).name


def test_staff_answer_has_no_customer(shop):
    body = APIClient().post("/api/auth/token/", {"username": "Operator", "password": "demo1234"}, format="json").json()
    assert (body["customer_id"], body["display_name"]) == (None, "operator")


def test_names_differing_only_in_case_cannot_both_exist(shop):
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user("C003", password="x")


def test_wrong_passwords_count_once_per_name_whatever_the_case(shop, settings):
    client = APIClient()
    for typed in ["c003", "C003", "c003", "C003", "C003"]:
        client.post("/api/auth/token/", {"username": typed, "password": "wrong"}, format="json")
    locked = client.post("/api/auth/token/", {"username": "c003", "password": "demo1234"}, format="json")
    assert locked.status_code == 429 and locked.json()["code"] == "login_locked"

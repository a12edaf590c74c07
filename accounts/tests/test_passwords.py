"""Django's four standard password validators guard every password set through a form or `validate_password`."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError

from common.tests.factories import UserFactory, superuser

pytestmark = pytest.mark.django_db


def test_the_four_standard_validators_are_configured():
    assert [v["NAME"].rsplit(".", 1)[-1] for v in settings.AUTH_PASSWORD_VALIDATORS] == [
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    ]


@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("kim-customer", "password_too_similar"),
        ("a1b2c3", "password_too_short"),
        ("password123", "password_too_common"),
        ("8203917465", "password_entirely_numeric"),
    ],
)
def test_each_validator_rejects_its_case(password, code):
    user = get_user_model()(username="kim-customer", email="kim@example.com")
    with pytest.raises(ValidationError) as caught:
        validate_password(password, user)
    assert code in {e.code for e in caught.value.error_list}


def test_a_sound_password_passes():
    validate_password("창문-Bicycle-7391", get_user_model()(username="kim"))


def test_the_admin_refuses_a_common_password(client):
    user = UserFactory(login_password="demo1234")
    client.force_login(superuser())
    response = client.post(
        f"/admin/auth/user/{user.pk}/password/",
        {"password1": "password123", "password2": "password123", "usable_password": "true"},
    )
    assert response.status_code == 200  # the form again, with the error
    user.refresh_from_db()
    assert user.check_password("demo1234")

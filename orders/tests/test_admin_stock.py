"""Stock typed in the admin: 0-9 only (Python's int() also reads other scripts' digits, which nobody at the desk
can read back)."""

import pytest

from common.tests.factories import superuser
from orders.tests.factories import ProductOptionFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("typed", ["١٢", "１２", "12\u0663"])
def test_other_scripts_digits_are_refused_and_nothing_changes(client, typed):
    option = ProductOptionFactory(stock=5)
    before = option.stock
    client.force_login(superuser())
    response = client.post(
        f"/admin/orders/productoption/{option.pk}/change/",
        {"product": option.product_id, "label": option.label, "stock": typed},
    )
    assert response.status_code == 200 and "숫자는 0-9로 입력해 주세요." in response.content.decode()
    option.refresh_from_db()
    assert option.stock == before


def test_ascii_digits_are_saved(client):
    option = ProductOptionFactory(stock=5)
    client.force_login(superuser())
    response = client.post(
        f"/admin/orders/productoption/{option.pk}/change/",
        {"product": option.product_id, "label": option.label, "stock": " 12 "},
    )
    assert response.status_code == 302
    option.refresh_from_db()
    assert option.stock == 12

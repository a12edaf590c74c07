"""The formats shop platforms send: amounts as a JSON integer or a decimal string with a zero fraction, dates or
RFC 3339 timestamps with an offset. Every accepted and refused form through the shop API, and the 7-day window
counted in Seoul days when a delivery instant falls around midnight."""

from __future__ import annotations

from decimal import Decimal

import pytest

from actions.errors import Refused
from actions.services import refund_request
from common.actors import Actor
from integration.models import SyncRecord
from integration.tests.factories import CUSTOMER_ID, ORDER_ID, client_for, order_body, product_body, put, seeded_client
from orders.models import Customer, Order, Product

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        (15000, Decimal(15000)),  # Naver's commerce API: a JSON integer
        ("15000", Decimal(15000)),
        ("15000.00", Decimal(15000)),  # Cafe24: a decimal string
        ("15000.0", Decimal(15000)),
        (0, Decimal(0)),
        ("0.00", Decimal(0)),
    ],
)
def test_an_amount_is_taken_as_an_integer_or_a_decimal_string_with_a_zero_fraction(sent, stored):
    _, client = seeded_client()
    response = put(client, "order", ORDER_ID, order_body(amount=sent))
    assert response.status_code == 200, response.json()
    assert Order.objects.get(pk=ORDER_ID).amount == stored
    assert put(client, "product", "P901", product_body(price=sent)).status_code == 200
    assert Product.objects.get(pk="P901").price == stored


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        ("15000.50", "원 단위 아래"),
        ("15000.5", "원 단위 아래"),
        (-1, "0 이상"),
        ("-15000", "0 이상"),
        (15000.0, "정수(15000)나"),  # a JSON float has already passed through binary
        (15000.5, "정수(15000)나"),
        (True, "정수(15000)"),
        ("15,000", "정수(15000)"),
        ("1.5e4", "정수(15000)"),
        ("", "정수(15000)"),
        ("₩15000", "정수(15000)"),
        (None, ""),
    ],
)
def test_a_fractional_negative_or_odd_amount_is_a_clear_400_and_stores_nothing(sent, says):
    _assert_order_refused(field="amount", sent=sent, says=says)


def _assert_order_refused(*, field: str, sent, says: str) -> None:
    """The order with `field` set to `sent` is a 400 whose message for that field says `says`; nothing stored."""
    _, client = seeded_client()
    response = put(client, "order", ORDER_ID, order_body(**{field: sent}))
    assert response.status_code == 400 and field in response.json()["errors"]
    assert says in " ".join(response.json()["errors"][field])
    assert not Order.objects.filter(pk=ORDER_ID).exists()


@pytest.mark.parametrize(
    ("sent", "day"),
    [
        ("2026-07-22", "2026-07-22"),
        ("2026-07-22T10:00:00+09:00", "2026-07-22"),
        ("2026-07-22T10:00:00.000+09:00", "2026-07-22"),
        ("2026-07-22T01:00:00Z", "2026-07-22"),
        ("2026-07-21T15:00:00.123456Z", "2026-07-22"),  # midnight in Seoul
        ("2026-07-21T14:59:59.999Z", "2026-07-21"),  # a millisecond before it
        ("2026-07-22T23:30:00-05:00", "2026-07-23"),
        ("2026-07-22 10:00:00+09:00", "2026-07-22"),
    ],
)
def test_a_date_or_an_rfc3339_timestamp_is_stored_as_its_seoul_day_and_the_instant_as_sent(sent, day):
    _, client = seeded_client()
    response = put(client, "order", ORDER_ID, order_body(delivered_at=sent))
    assert response.status_code == 200, response.json()
    assert Order.objects.get(pk=ORDER_ID).delivered_at.isoformat() == day
    times = SyncRecord.objects.get(kind="order", external_id=ORDER_ID).data.get("times", {})
    assert times == ({} if len(sent) == 10 else {"delivered_at": sent})


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        ("2026-07-22T10:00:00", "시간대"),  # no offset: no instant
        ("2026-07-22T10:00", "시간대"),
        ("2026-13-01", "날짜는"),
        ("2026-02-30T10:00:00+09:00", "날짜는"),
        ("22/07/2026", "날짜는"),
        ("2026-07-22T10:00:00+0900", "날짜는"),
        (20260722, "날짜는"),
        ("", "날짜는"),
    ],
)
def test_a_timestamp_without_an_offset_or_a_malformed_date_is_a_clear_400(sent, says):
    _assert_order_refused(field="delivered_at", sent=sent, says=says)


def test_the_result_report_takes_the_same_amount_forms(settings):
    from actions.models import ActionRecord

    issued, client = seeded_client()
    assert put(client, "order", ORDER_ID, order_body(amount=59000)).status_code == 200
    refund_request(
        customer=Customer.objects.get(pk=CUSTOMER_ID),
        order_id=ORDER_ID,
        reason_category="DEFECT",
        reason="불량",
        actor=Actor.system("test"),
    )
    record = ActionRecord.objects.get(order_id=ORDER_ID)
    ActionRecord.objects.filter(pk=record.pk).update(status="EXECUTING", refund_amount=59000)
    url = f"/api/integration/actions/{record.number}/result/"
    refused = client_for(issued.api_key).post(url, {"ok": True, "external_ref": "R1", "amount": 590.5}, format="json")
    assert refused.status_code == 400 and "amount" in refused.json()["errors"]
    done = client_for(issued.api_key).post(url, {"ok": True, "external_ref": "R1", "amount": "58000.00"}, format="json")
    assert done.status_code == 200, done.json()
    assert ActionRecord.objects.get(pk=record.pk).refund_amount == 58000


@pytest.mark.parametrize(
    ("delivered_at", "allowed"),
    [
        ("2026-07-20T15:30:00Z", True),  # 21 July 00:30 in Seoul: day 7 on the 28th, inside the window
        ("2026-07-20T14:30:00Z", False),  # 20 July 23:30 in Seoul: day 8, outside (a UTC date would say 20 too)
        ("2026-07-21T00:10:00+09:00", True),
        ("2026-07-20T23:50:00+09:00", False),
    ],
)
def test_the_seven_day_window_counts_seoul_days_across_midnight(settings, delivered_at, allowed):
    settings.CS_TODAY = "2026-07-28"
    _, client = seeded_client()
    assert put(client, "order", ORDER_ID, order_body(delivered_at=delivered_at)).status_code == 200
    customer = Customer.objects.get(pk=CUSTOMER_ID)

    def ask():
        return refund_request(
            customer=customer,
            order_id=ORDER_ID,
            reason_category="CHANGE_OF_MIND",
            reason="마음이 바뀜",
            actor=Actor.system("test"),
        )

    if allowed:
        assert ask().record.status == "PENDING"
    else:
        with pytest.raises(Refused, match="7일"):
            ask()

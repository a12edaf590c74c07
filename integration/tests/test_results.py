"""The shop's result report on a refund it carried out: idempotent on its reference however it was spaced, and
never for more than the order's amount."""

from __future__ import annotations

import pytest

from actions.errors import ResultInvalid
from actions.models import ActionRecord
from actions.services import action_decide, action_result_record
from actions.tests.factories import decider
from common.actors import Actor
from common.errors import NotFound
from integration.models import Integration
from integration.services.results import action_result_report
from integration.tests.factories import ORDER_ID, client_for, make_integration, refund_pending, seed_shop
from orders.models import Order

pytestmark = pytest.mark.django_db


@pytest.fixture
def executing(db):
    """A refund of the shop's order, approved: 처리중, waiting for the shop's report."""
    issued = make_integration()
    seed_shop(issued)
    record = action_decide(number=refund_pending("불량").number, approve=True, actor=decider())
    assert record.status == ActionRecord.Status.EXECUTING
    client = client_for(issued.api_key)
    return record, client


def _report(client, record, *, number: str | None = None, **body):
    return client.post(f"/api/integration/actions/{number or record.number}/result/", body, format="json")


@pytest.mark.parametrize("again", ["PG  7", " PG 7 ", "PG\t7", "PG 7"])
def test_the_same_report_with_its_reference_spaced_differently_is_the_same_report(executing, again):
    record, client = executing
    first = _report(client, record, ok=True, external_ref="PG  7")
    second = _report(client, record, ok=True, external_ref=again)

    assert (first.status_code, first.json()["changed"]) == (200, True)
    assert (second.status_code, second.json()["changed"]) == (200, False)
    record.refresh_from_db()
    assert (record.status, record.detail["external_ref"]) == ("DONE", "PG 7")
    assert record.events.filter(to_status="DONE").count() == 1


def test_the_service_normalises_the_reference_before_comparing_it(executing):
    record, _ = executing
    shop = Actor.system("shop:myshop")
    _, changed = action_result_record(number=record.number, ok=False, external_ref="  PG-9 ", actor=shop)
    _, again = action_result_record(number=record.number, ok=False, external_ref="PG-9", actor=shop)
    assert (changed, again) == (True, False)
    with pytest.raises(ResultInvalid):
        action_result_record(number=record.number, ok=False, external_ref=" \u3000 ", actor=shop)


def test_a_refund_larger_than_the_order_is_refused_and_changes_nothing(executing):
    record, client = executing

    refused = _report(client, record, ok=True, external_ref="PG-1", amount="59001")

    assert refused.status_code == 400
    assert refused.json() == {
        "code": "amount_exceeds_order",
        "detail": f"환불 금액 59,001원이 주문 {ORDER_ID}의 결제 금액 59,000원보다 큽니다. "
        "결제 금액 이하로 보고해 주세요.",
    }
    record.refresh_from_db()
    assert (record.status, record.refund_amount) == ("EXECUTING", 59000)
    assert Order.objects.get(pk=ORDER_ID).status == "DELIVERED"
    partial = _report(client, record, ok=True, external_ref="PG-1", amount="30000")
    assert partial.status_code == 200
    record.refresh_from_db()
    assert (record.status, record.refund_amount) == ("DONE", 30000)


@pytest.mark.parametrize("form", ["A{n}", "{n}", "a{n:05d}", "A{n:06d}", "A{n:05d}%20"])
def test_only_the_canonical_action_number_reaches_a_report(executing, form):
    record, client = executing
    other = form.format(n=record.pk)

    response = client.post(
        f"/api/integration/actions/{other}/result/", {"ok": True, "external_ref": "X"}, format="json"
    )

    assert response.status_code == 404 and response.json()["code"] == "not_found"
    record.refresh_from_db()
    assert record.status == "EXECUTING"
    assert _report(client, record, ok=True, external_ref="X").status_code == 200  # record.number: A00001


def test_the_service_takes_only_the_canonical_number_from_the_shop(executing):
    record, _ = executing
    integration = Integration.objects.get()
    for other in (str(record.pk), f"A{record.pk}", record.number.lower(), record.pk):
        with pytest.raises(NotFound):
            action_result_report(integration=integration, action_id=other, ok=True, external_ref="X")
    report, changed = action_result_report(integration=integration, action_id=record.number, ok=True, external_ref="X")
    assert changed and report.status == "DONE"

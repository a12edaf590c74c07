"""Events flow out through the outbox to a real HTTP receiver (the reference shop on loopback), and the
shop's result flows back. Embedded mode: delivery runs in-process after the commit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from actions.models import ActionRecord
from actions.services import action_decide, address_change
from actions.tests.factories import refund_requested
from common import outbox
from common.actors import Actor
from common.models import OutboxMessage
from common.tests.factories import superuser
from integration.models import ShopEvent
from integration.services.webhooks import WEBHOOK_TOPIC, shop_event_route
from integration.tasks import webhook_deliver_handler
from integration.tests.factories import (
    CUSTOMER_ID,
    ORDER_ID,
    client_for,
    make_integration,
    outbox_make_due,
    refund_pending,
    seed_shop,
    shop_customer_client,
    webhook_delivery,
)
from orders.models import Customer, Order

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def connected(connected, settings):
    """The connected shop (conftest.py), its deliveries given up after three attempts."""
    settings.CS_WEBHOOK_MAX_ATTEMPTS = 3
    return connected


def test_approval_sends_exactly_one_signed_refund_event_and_waits_for_the_shop(connected, operator):
    issued, simulator = connected
    record = refund_pending()

    decided = action_decide(number=record.number, approve=True, actor=operator)

    assert decided.status == ActionRecord.Status.EXECUTING and decided.status_label == "처리중"
    assert Order.objects.get(pk=ORDER_ID).status == "DELIVERED"  # the shop has not moved the money yet
    [event] = simulator.of_type("action.refund_approved")
    assert event.signature_ok and event.header_id_matches
    assert event.body["data"] == {
        "action_id": record.number,
        "kind": "REFUND",
        "status": "EXECUTING",
        "order_id": ORDER_ID,
        "customer_id": CUSTOMER_ID,
        "amount": 59000,
        "reason_category": "DEFECT",
    }
    assert set(event.body) == {"id", "type", "created_at", "data"}
    assert len(simulator.received) == 1 and simulator.attempts == 1
    assert webhook_delivery().status == "DONE"


def _executing(issued, operator) -> tuple[ActionRecord, APIClient]:
    """The shop's order's refund, approved (처리중), and the shop's client to report on it."""
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)
    return record, client_for(issued.api_key)


def test_the_shops_success_report_makes_it_refunded_for_the_customer(connected, operator):
    issued, simulator = connected
    record, client = _executing(issued, operator)

    response = client.post(
        f"/api/integration/actions/{record.number}/result/", {"ok": True, "external_ref": "PG-1"}, format="json"
    )

    assert response.status_code == 200 and response.json()["status_display"] == "환불완료"
    record.refresh_from_db()
    assert (record.status, record.refund_amount, record.detail["external_ref"]) == ("DONE", 59000, "PG-1")
    assert Order.objects.get(pk=ORDER_ID).status == "RETURNED"
    again = client.post(
        f"/api/integration/actions/{record.number}/result/", {"ok": True, "external_ref": "PG-1"}, format="json"
    )
    assert again.status_code == 200 and again.json()["changed"] is False
    assert record.events.filter(to_status="DONE").count() == 1


def test_the_shops_failure_report_is_visible_and_nothing_is_refunded(connected, operator):
    issued, simulator = connected
    record, client = _executing(issued, operator)

    response = client.post(
        f"/api/integration/actions/{record.number}/result/",
        {"ok": False, "external_ref": "PG-2", "message": "카드사 거절"},
        format="json",
    )

    assert response.json()["status_display"] == "처리실패"
    record.refresh_from_db()
    assert record.status == "FAILED" and Order.objects.get(pk=ORDER_ID).status == "DELIVERED"
    # A later success for a FAILED record is refused: the operator decides what happens next.
    late = client.post(
        f"/api/integration/actions/{record.number}/result/", {"ok": True, "external_ref": "PG-3"}, format="json"
    )
    assert late.status_code == 409
    # The customer is told plainly; the operator's admin index counts it as a follow-up to make.
    customer = shop_customer_client(issued, valid_s=60)
    shown = next(a for a in customer.get("/api/requests/").json()["actions"] if a["action_id"] == record.number)
    assert shown["status_display"] == "처리실패"
    assert shown["status_message"].startswith("쇼핑몰에서 환불을 처리하지 못했습니다.")
    staff = Client()
    staff.force_login(operator)
    index = staff.get("/admin/").content.decode()
    assert 'id="failed-execution-count" style="color:#b91c1c">1건' in index


def test_another_integration_cannot_report_on_this_shops_action(connected, operator):
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)
    other = make_integration("other")
    client = client_for(other.api_key)
    response = client.post(
        f"/api/integration/actions/{record.number}/result/", {"ok": True, "external_ref": "X"}, format="json"
    )
    assert response.status_code == 404
    record.refresh_from_db()
    assert record.status == "EXECUTING"


def test_receiver_down_for_a_while_is_retried_with_backoff_and_delivered_once(connected, operator):
    issued, simulator = connected
    simulator.down = True
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)

    row = webhook_delivery()
    assert (row.status, row.attempts, row.last_error) == ("PENDING", 1, "http_503")
    assert row.next_attempt_at > timezone.now() + timedelta(seconds=4)  # backoff, not a hot loop
    assert outbox.outbox_sweep() == 0  # not due yet
    outbox_make_due()
    outbox.outbox_sweep()
    assert webhook_delivery().attempts == 2 and simulator.received == []

    simulator.down = False
    outbox_make_due()
    outbox.outbox_sweep()

    [event] = simulator.received
    assert event.event_id == ShopEvent.objects.get(type="action.refund_approved").event_id
    assert webhook_delivery().status == "DONE" and simulator.attempts == 3
    outbox_make_due()
    outbox.outbox_sweep()
    assert len(simulator.received) == 1 and simulator.attempts == 3


def test_always_failing_goes_dead_and_the_admin_replays_it(connected, operator, client):
    issued, simulator = connected
    simulator.down = True
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)
    for _ in range(3):
        outbox_make_due()
        outbox.outbox_sweep()
    row = webhook_delivery()
    assert (row.status, row.attempts) == ("DEAD", 3)

    simulator.down = False
    admin = superuser()
    client.force_login(admin)
    event = ShopEvent.objects.get()
    page = client.get("/admin/integration/shopevent/")
    assert page.status_code == 200 and "포기" in page.content.decode()
    response = client.post(
        "/admin/integration/shopevent/", {"action": "replay", "_selected_action": [event.pk]}, follow=True
    )

    assert response.status_code == 200
    [received] = simulator.received
    assert received.event_id == event.event_id and received.signature_ok
    assert webhook_delivery().status == "DONE"


def test_broker_down_at_commit_the_sweep_delivers_later(connected, operator):
    issued, simulator = connected

    def broker_down(message):
        raise ConnectionError("redis down")

    outbox.outbox_register(WEBHOOK_TOPIC, broker_down)
    try:
        record = refund_pending()
        decided = action_decide(number=record.number, approve=True, actor=operator)
        assert decided.status == "EXECUTING"  # the approval itself is stored
        assert webhook_delivery().status == "PENDING" and webhook_delivery().last_error == "ConnectionError"
        assert simulator.received == []
    finally:
        outbox.outbox_register(WEBHOOK_TOPIC, webhook_deliver_handler, redeliver_after_s=300)
    outbox_make_due()
    outbox.outbox_sweep()
    [event] = simulator.received
    assert event.type == "action.refund_approved" and webhook_delivery().status == "DONE"


def test_a_lost_route_is_redone_by_the_sweep(connected):
    """The shop.event row itself (written with the change) survives a crash before routing."""
    issued, simulator = connected
    outbox.outbox_register("shop.event", lambda m: (_ for _ in ()).throw(ConnectionError("crash")))
    try:
        customer = Customer.objects.get(pk=CUSTOMER_ID)
        Order.objects.filter(pk=ORDER_ID).update(status="PAID", delivered_at=None, shipped_at=None)
        address_change(
            customer=customer,
            order_id=ORDER_ID,
            new_address="서울시 마포구 양화로 45",
            actor=Actor.customer_agent(customer),
        )
        assert not ShopEvent.objects.exists()
    finally:
        outbox.outbox_register("shop.event", shop_event_route)
    outbox_make_due()
    outbox.outbox_sweep()
    [event] = simulator.received
    assert event.type == "action.address_changed" and event.body["data"]["new_address"] == "서울시 마포구 양화로 45"


def test_rejection_is_an_event_too(connected, operator):
    issued, simulator = connected
    record = refund_pending()
    action_decide(number=record.number, approve=False, actor=operator, note="사진 확인 불가")
    [event] = simulator.received
    assert event.type == "action.rejected" and event.body["data"]["status"] == "REJECTED"


def test_without_an_integration_the_demo_shop_executes_at_once_and_no_event_goes_out(operator):
    # The desk's own order (no integration sent it): its executor refunds at once.
    record = refund_requested(reason="불량")
    decided = action_decide(number=record.number, approve=True, actor=operator)
    assert decided.status == "APPROVED" and Order.objects.get(pk=record.order_id).status == "RETURNED"
    assert not ShopEvent.objects.exists()
    assert not OutboxMessage.objects.filter(topic="shop.event").exclude(status="DONE").exists()


def test_events_feed_for_an_integration_without_webhook(operator):
    issued = make_integration("feedonly")
    seed_shop(issued)
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)
    client = client_for(issued.api_key)

    events = client.get("/api/integration/events/").json()["events"]
    assert [e["type"] for e in events] == ["action.refund_approved"]
    assert client.get(f"/api/integration/events/?after={events[0]['id']}").json() == {"events": []}
    assert not OutboxMessage.objects.filter(topic=WEBHOOK_TOPIC).exists()


def test_ticket_created_is_an_event(connected):
    from tickets.models import Ticket
    from tickets.services import ticket_create

    issued, simulator = connected
    customer = Customer.objects.get(pk=CUSTOMER_ID)
    ticket_create(
        customer=customer,
        category="OTHER",
        subject="문의",
        body="배송 문의",
        source=Ticket.Source.API,
        author=None,
        order=Order.objects.get(pk=ORDER_ID),
    )
    [event] = simulator.received
    assert event.type == "ticket.created" and event.body["data"]["order_id"] == ORDER_ID


def test_the_event_list_reads_each_delivery_without_a_query_per_row(connected, operator, client):
    """The admin's event list shows every event's delivery state, attempts and error in a constant number of
    queries (one subquery per column), with the type in words."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    issued, simulator = connected
    client.force_login(superuser())
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)
    with CaptureQueriesContext(connection) as one:
        page = client.get("/admin/integration/shopevent/").content.decode()
    assert "환불 승인" in page and "완료" in page
    for n in range(4):
        ShopEvent.objects.create(
            integration=issued.integration,
            event_id=f"evt_extra{n}",
            type="ticket.created",
            data={},
            created_at=timezone.now(),
        )
    with CaptureQueriesContext(connection) as five:
        page = client.get("/admin/integration/shopevent/").content.decode()
    assert page.count("문의 접수") >= 4
    assert len(five) == len(one)

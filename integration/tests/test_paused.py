"""A shop whose connection is paused (Integration.active off) still owns its orders: an approved refund waits for
it (처리중, its event written and held) and reaches it when it is switched on again, without a second approval.
Its customers' shop-session tokens are refused meanwhile and accepted again afterwards."""

from __future__ import annotations

import pytest
from django.test import Client

from actions.models import ActionRecord
from actions.services import action_decide
from common.actors import Actor
from common.tests.factories import superuser
from integration.models import Integration, ShopEvent
from integration.services.integrations import integration_update
from integration.tests import factories
from integration.tests.factories import (
    ORDER_ID,
    client_for,
    outbox_make_due,
    refund_pending,
    shop_customer_client,
    webhook_delivery,
)
from ops.sweep import sweep_run
from orders.models import Order

pytestmark = pytest.mark.django_db(transaction=True)


def _set_active(integration: Integration, active: bool) -> None:
    integration.refresh_from_db()
    integration_update(
        integration=integration,
        webhook_url=integration.webhook_url,
        scopes=integration.scopes,
        allowed_origins=integration.allowed_origins,
        active=active,
        actor=Actor.system("test"),
    )


def test_a_refund_approved_while_the_shop_is_paused_waits_for_it_and_reaches_it_when_it_is_back(connected, operator):
    issued, simulator = connected
    record = refund_pending()
    _set_active(issued.integration, False)

    decided = action_decide(number=record.number, approve=True, actor=operator)

    # The shop executes it, not the demo executor: 처리중, the order untouched, the customer not told it is done.
    assert (decided.status, decided.refund_amount) == (ActionRecord.Status.EXECUTING, 59000)
    assert Order.objects.get(pk=ORDER_ID).status == "DELIVERED"
    note = decided.events.get(to_status="EXECUTING").note
    assert "쇼핑몰 연동(myshop)이 중지되어 있어 연동이 다시 켜지면 요청이 전달됩니다" in note
    # The event is written for the shop and its delivery is held, not sent and not failed.
    event = ShopEvent.objects.get(type="action.refund_approved")
    assert event.integration_id == issued.integration.pk and event.data["action_id"] == record.number
    assert (webhook_delivery().status, webhook_delivery().last_error) == ("HELD", "integration_paused")
    assert simulator.attempts == 0
    outbox_make_due()
    sweep_run()
    assert simulator.attempts == 0 and webhook_delivery().status == "HELD"  # the sweep leaves it while paused

    _set_active(issued.integration, True)

    [received] = simulator.of_type("action.refund_approved")
    assert received.event_id == event.event_id and received.signature_ok
    assert webhook_delivery().status == "DONE" and simulator.attempts == 1
    # The shop's report is accepted (it was a 409 when the desk had executed the refund itself).
    client = client_for(issued.api_key)
    report = client.post(
        f"/api/integration/actions/{record.number}/result/", {"ok": True, "external_ref": "PG-1"}, format="json"
    )
    assert report.status_code == 200 and report.json()["status"] == "DONE"
    assert Order.objects.get(pk=ORDER_ID).status == "RETURNED"


def test_switched_back_on_in_the_admin_the_held_refund_goes_out(connected, operator):
    issued, simulator = connected
    record = refund_pending()
    _set_active(issued.integration, False)
    action_decide(number=record.number, approve=True, actor=operator)
    admin = Client()
    admin.force_login(superuser())
    url = f"/admin/integration/integration/{issued.integration.pk}/change/"
    form = {"webhook_url": simulator.url, "scopes": '["catalog:write", "events:read", "actions:report"]'}

    events_page = admin.get("/admin/integration/shopevent/").content.decode()
    assert "보류" in events_page and '<span title="integration_paused">연동 중지: 다시 켜면 전송</span>' in events_page
    saved = admin.post(url, {**form, "allowed_origins": "[]", "active": "on"})

    assert saved.status_code == 302
    assert [r.type for r in simulator.received] == ["action.refund_approved"] and webhook_delivery().status == "DONE"


def test_reactivated_some_other_way_the_sweep_delivers_what_was_held(connected, operator):
    issued, simulator = connected
    record = refund_pending()
    _set_active(issued.integration, False)
    action_decide(number=record.number, approve=True, actor=operator)
    Integration.objects.filter(pk=issued.integration.pk).update(active=True)  # e.g. a shell, or a restore

    assert sweep_run()["released"] == 1

    assert [r.type for r in simulator.received] == ["action.refund_approved"] and webhook_delivery().status == "DONE"


def test_a_delivery_still_retrying_when_the_shop_is_paused_is_held_instead_of_running_out_of_attempts(
    connected, operator, settings
):
    settings.CS_WEBHOOK_MAX_ATTEMPTS = 2
    issued, simulator = connected
    simulator.down = True
    record = refund_pending()
    action_decide(number=record.number, approve=True, actor=operator)
    assert (webhook_delivery().status, webhook_delivery().attempts) == ("PENDING", 1)
    _set_active(issued.integration, False)

    for _ in range(3):
        outbox_make_due()
        sweep_run()

    assert (webhook_delivery().status, simulator.attempts) == ("HELD", 1)  # not DEAD, and nothing more sent
    simulator.down = False
    _set_active(issued.integration, True)
    assert [r.type for r in simulator.received] == ["action.refund_approved"] and webhook_delivery().status == "DONE"


def test_without_a_webhook_the_paused_shop_reads_the_event_in_its_feed_once_it_is_back(operator):
    issued = factories.make_integration("feedonly")
    factories.seed_shop(issued)
    record = refund_pending()
    _set_active(issued.integration, False)
    action_decide(number=record.number, approve=True, actor=operator)
    client = client_for(issued.api_key)
    assert client.get("/api/integration/events/").status_code == 401  # its key is refused while paused

    _set_active(issued.integration, True)

    events = client.get("/api/integration/events/").json()["events"]
    assert [(e["type"], e["data"]["action_id"]) for e in events] == [("action.refund_approved", record.number)]


def test_the_operator_is_told_plainly_that_the_shop_is_paused(connected, operator):
    issued, _ = connected
    record = refund_pending()
    _set_active(issued.integration, False)
    staff = Client()
    staff.force_login(operator)
    page = f"/admin/actions/actionrecord/{record.pk}/change/"

    before = staff.get(page).content.decode()
    confirm = staff.get(f"/admin/actions/actionrecord/{record.pk}/decide/?approve=1").content.decode()
    action_decide(number=record.number, approve=True, actor=operator)
    after = staff.get(page).content.decode()

    assert 'id="cs-shop-paused"' in before and "승인해도" not in before
    assert "지금 연동이 중지되어 있습니다" in before and "쇼핑몰에 전달되지 않아 환불이 진행되지 않습니다" in before
    assert 'id="cs-shop-paused"' in confirm and "쇼핑몰 'myshop'에 처리를 요청" in confirm
    assert "아직 쇼핑몰에 전달되지 않았습니다" in after and "다시 승인할 필요 없음" in after
    _set_active(issued.integration, True)
    assert 'id="cs-shop-paused"' not in staff.get(page).content.decode()


# --- the customers' shop-session tokens ----------------------------------------------------------------------
def test_a_paused_shops_session_tokens_are_refused_and_accepted_again_once_it_is_back(db):
    issued = factories.make_integration()
    factories.seed_shop(issued)
    customer = shop_customer_client(issued)
    assert customer.get("/api/orders/").status_code == 200

    _set_active(issued.integration, False)
    refused = customer.get("/api/orders/")
    chat = customer.post("/api/chat/", {"message": "내 주문 보여줘"}, format="json")

    assert refused.status_code == 401 and refused["Content-Type"].startswith("application/json")
    assert refused.json() == {
        "code": "shop_paused",
        "detail": "이 쇼핑몰의 상담 연결이 잠시 중지되었습니다. 쇼핑몰에서 다시 접속해 주세요.",
    }
    assert chat.status_code == 401 and chat.json()["code"] == "shop_paused"
    _set_active(issued.integration, True)
    assert customer.get("/api/orders/").status_code == 200  # the same token, not revoked


def test_a_password_login_is_not_asked_about_any_shop(customer_api):
    factories.make_integration()
    Integration.objects.update(active=False)
    assert customer_api.get("/api/orders/").status_code == 200

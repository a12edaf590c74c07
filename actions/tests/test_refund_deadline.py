"""The statutory refund deadline on approved refunds and cancellations, on a pinned clock across the weekend and
the 광복절 substitute holiday: counted from the approval, shown on the approval queue and the record page with its
state in colour and in a word, flagged when at risk or overdue, met once the money moved."""

from datetime import datetime

import pytest
from django.urls import reverse

from actions import execution
from actions.execution import ShopExecutor
from actions.models import ActionEvent, ActionRecord
from actions.services import action_decide, action_result_record
from actions.tests.factories import refund_requested
from common.actors import Actor

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shop_hours")]


@pytest.fixture
def shop_executes(monkeypatch):
    """A connected shop carries out the money (actions.execution): approval leaves it 처리중 until it reports.
    The seam's registration is put back afterwards (the integration app fills it at start-up)."""
    monkeypatch.setattr(execution, "_executor", lambda order_id: ShopExecutor("테스트 쇼핑몰"))


def _approved_refund(operator, settings) -> ActionRecord:
    record = refund_requested()
    settings.CS_NOW = "2026-08-13T15:00:00+09:00"  # Thursday
    return action_decide(number=record.number, approve=True, actor=operator)


def _queue_and_page(client, record) -> tuple[str, str]:
    queue = client.get(reverse("admin:actions_actionrecord_changelist") + "?status__exact=EXECUTING").content.decode()
    page = client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    return queue, page


def test_an_approved_refund_carries_its_deadline_and_is_flagged_as_it_nears(client, operator, settings, shop_executes):
    record = _approved_refund(operator, settings)
    assert record.status == "EXECUTING"
    client.force_login(operator)
    settings.CS_TODAY = "2026-08-14"
    queue, page = _queue_and_page(client, record)
    assert "8월 19일(수)까지 · 기한 내" in queue and "8월 19일(수)까지 · 기한 내" in page
    assert 'id="cs-refund-deadline"' in page and "전자상거래법 제18조" in page
    settings.CS_TODAY = "2026-08-18"
    queue, page = _queue_and_page(client, record)
    assert 'class="cs-deadline cs-deadline-at_risk" style="color:#b45309;font-weight:bold"' in queue
    assert "8월 19일(수)까지 · 기한 임박" in page
    settings.CS_TODAY = "2026-08-20"
    queue, page = _queue_and_page(client, record)
    assert "기한 지남" in queue and 'style="color:#b91c1c;font-weight:bold"' in page


def test_the_deadline_is_met_once_the_shop_reports_the_refund(client, operator, settings, shop_executes):
    record = _approved_refund(operator, settings)
    action_result_record(number=record.number, ok=True, external_ref="PG-1", actor=Actor.system("쇼핑몰"))
    # Reported on Tuesday (event rows are stamped by the database clock, not the pinned one).
    ActionEvent.objects.filter(record=record, to_status="DONE").update(
        created_at=datetime.fromisoformat("2026-08-18T11:00:00+09:00")
    )
    client.force_login(operator)
    settings.CS_TODAY = "2026-08-25"
    page = client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    assert "기한 내 환불" in page and "기한 지남" not in page


def test_with_the_built_in_shop_the_money_moves_at_approval(client, operator, settings):
    record = _approved_refund(operator, settings)
    assert record.status == "APPROVED"
    client.force_login(operator)
    settings.CS_TODAY = "2026-08-25"
    page = client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    assert "8월 19일(수)까지 · 기한 내 환불" in page


def test_pending_and_rejected_requests_have_no_deadline(client, operator, settings):
    record = refund_requested(reason="하자")
    client.force_login(operator)
    page = client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    assert 'id="cs-refund-deadline"' not in page

"""The approval queue as a first-class admin page: 승인 대기열 with the pending count on the admin
index, oldest first with the elapsed time; per-record 승인/반려 through a confirmation stating the amount and
the order; the customer's earlier refused requests on the same order beside it."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from actions.models import ActionRecord
from actions.services import action_decide
from actions.tests.factories import refund_requested

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator_client(client, operator):
    client.force_login(operator)
    return client


def test_index_shows_the_queue_with_the_pending_count(operator_client):
    refund_requested()
    page = operator_client.get(reverse("admin:index")).content.decode()
    pending = ActionRecord.objects.filter(status="PENDING").count()
    assert "승인 대기열" in page and f'id="approval-queue-count">{pending}건</b>' in page


def test_approve_from_the_record_page_through_a_confirmation(operator_client):
    record = refund_requested()
    page = operator_client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    assert 'id="cs-approve"' in page and 'id="cs-reject"' in page
    confirm = operator_client.get(reverse("admin:actions_actionrecord_decide", args=[record.pk]) + "?approve=1")
    text = confirm.content.decode()
    amount = f"{int(record.refund_amount if record.refund_amount is not None else record.order.amount):,}원"
    assert record.order_id in text and amount in text and "승인" in text
    assert ActionRecord.objects.get(pk=record.pk).status == "PENDING"  # the confirmation page changes nothing
    operator_client.post(reverse("admin:actions_actionrecord_decide", args=[record.pk]), {"approve": "1"})
    assert ActionRecord.objects.get(pk=record.pk).status == "APPROVED"
    page = operator_client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    assert 'id="cs-approve"' not in page  # decided: no buttons


def test_earlier_refused_request_on_the_same_order_is_shown_beside(operator_client, operator):
    first = refund_requested(category="DEFECT", reason="처음 요청")
    action_decide(number=first.pk, approve=False, actor=operator, note="단순변심으로 확인")
    second = refund_requested(first.order, category="DEFECT", reason="다시 요청")
    page = operator_client.get(reverse("admin:actions_actionrecord_change", args=[second.pk])).content.decode()
    assert f'id="cs-earlier-{first.pk}"' in page and "단순변심으로 확인" in page


def test_without_the_decide_permission_nothing_is_decided(client):
    from django.contrib.auth.models import Permission

    record = refund_requested()
    clerk = get_user_model().objects.create_user("clerk", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_actionrecord"))
    client.force_login(clerk)
    page = client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    assert 'id="cs-approve"' not in page
    client.post(reverse("admin:actions_actionrecord_decide", args=[record.pk]), {"approve": "1"})
    assert ActionRecord.objects.get(pk=record.pk).status == "PENDING"

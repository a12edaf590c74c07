"""`action_decide`: permission, re-check against the order now, execute once, audit events."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from actions import execution
from actions.errors import AlreadyDecided, NotApprovable, Refused
from actions.execution import ShopExecutor
from actions.models import ActionEvent, ActionRecord
from actions.services import action_decide, address_change
from actions.tests.factories import agent_refund
from common.actors import Actor
from common.errors import NotFound, PermissionDenied
from common.tests.factories import operator_with
from orders.models import Order, ProductOption
from orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def delivered():
    """A 38,000원 order delivered 26 days before the shop's today: past the change-of-mind window, within a
    defect's."""
    return OrderFactory(delivered_days_ago=26, amount=Decimal("38000"))


@pytest.fixture
def preparing():
    """An order not yet shipped: a refund request for it is a cancellation."""
    return OrderFactory(status=Order.Status.PREPARING)


@pytest.fixture
def pending_refund(delivered):
    record = agent_refund(delivered.customer, order_id=delivered.pk, reason_category="상품하자", reason="녹이 슬었어요")
    return ActionRecord.objects.get(pk=record.pk)


@pytest.fixture
def pending_cancel(preparing):
    agent_refund(preparing.customer, order_id=preparing.pk, reason_category="확인필요")
    return ActionRecord.objects.get(kind="CANCEL")


def test_approve_refund_returns_order_and_records_amount(pending_refund, operator):
    record = action_decide(number=pending_refund.number, approve=True, actor=operator, note="사진 확인")
    assert (record.status, record.refund_amount, record.decided_by) == ("APPROVED", 38000, operator)
    assert Order.objects.get(pk=pending_refund.order_id).status == "RETURNED"
    event = ActionEvent.objects.filter(record=record).last()
    assert (event.from_status, event.to_status, event.actor_label) == ("PENDING", "APPROVED", "operator")
    assert "반품완료" in event.note and "사진 확인" in event.note


@pytest.fixture
def shop_executes(monkeypatch):
    """Connected shops by the order ids they own (registered through the seam, as the integration app does)."""
    shops: dict[str, ShopExecutor] = {}
    monkeypatch.setattr(execution, "_executor", shops.get)
    return shops


@pytest.mark.parametrize("paused", [False, True])
def test_a_refund_a_shop_executes_waits_for_its_report_even_while_the_shop_is_paused(
    pending_refund, operator, shop_executes, paused
):
    shop_executes[pending_refund.order_id] = ShopExecutor("myshop", paused=paused)
    record = action_decide(number=pending_refund.number, approve=True, actor=operator)
    assert (record.status, record.refund_amount) == ("EXECUTING", 38000)
    assert Order.objects.get(pk=pending_refund.order_id).status == "DELIVERED"  # the shop moves the money, not the desk
    note = ActionEvent.objects.filter(record=record).last().note
    assert note.startswith("쇼핑몰 처리 요청: 환불 38,000원")
    assert ("연동이 다시 켜지면 요청이 전달됩니다" in note) is paused


def test_approve_cancel_cancels_order_and_restocks(pending_cancel, operator):
    option = Order.objects.get(pk=pending_cancel.order_id).option
    before = option.stock
    action_decide(number=pending_cancel.pk, approve=True, actor=operator)
    assert Order.objects.get(pk=pending_cancel.order_id).status == "CANCELLED"
    assert ProductOption.objects.get(pk=option.pk).stock == before + 1


def test_reject_changes_nothing_on_the_order(pending_refund, operator):
    record = action_decide(number=pending_refund.number, approve=False, actor=operator)
    assert record.status == "REJECTED" and record.refund_amount is None
    assert Order.objects.get(pk=pending_refund.order_id).status == "DELIVERED"


def test_deciding_twice_is_a_clear_error_not_a_second_execution(pending_refund, operator):
    action_decide(number=pending_refund.number, approve=True, actor=operator)
    with pytest.raises(AlreadyDecided, match="이미 '승인완료'"):
        action_decide(number=pending_refund.number, approve=True, actor=operator)
    with pytest.raises(AlreadyDecided):
        action_decide(number=pending_refund.number, approve=False, actor=operator)
    assert ActionEvent.objects.filter(record=pending_refund, to_status="APPROVED").count() == 1


def test_cancel_for_order_that_shipped_since_cannot_be_approved(pending_cancel, operator):
    Order.objects.filter(pk=pending_cancel.order_id).update(status="SHIPPING")  # the warehouse moved on
    with pytest.raises(NotApprovable, match="배송중"):
        action_decide(number=pending_cancel.number, approve=True, actor=operator)
    pending_cancel.refresh_from_db()
    assert pending_cancel.status == "PENDING"
    assert Order.objects.get(pk=pending_cancel.order_id).status == "SHIPPING"
    # The operator can still reject it.
    assert action_decide(number=pending_cancel.number, approve=False, actor=operator).status == "REJECTED"


def test_only_users_with_decide_permission(pending_refund):
    staff = get_user_model().objects.create_user("staff2", password="x", is_staff=True)
    customer_user = pending_refund.customer.user
    for user in (staff, customer_user):
        with pytest.raises(PermissionDenied):
            action_decide(number=pending_refund.number, approve=True, actor=user)
    pending_refund.refresh_from_db()
    assert pending_refund.status == "PENDING"


def test_done_records_and_unknown_numbers_are_not_decidable():
    order = OrderFactory()  # any paid order: the demo's ids are not the point
    operator = operator_with("actions.decide")
    address_change(
        customer=order.customer,
        order_id=order.pk,
        new_address="서울특별시 중구 세종대로 110",
        actor=Actor.customer_agent(order.customer),
    )
    done = ActionRecord.objects.get()
    with pytest.raises(NotApprovable):
        action_decide(number=done.number, approve=True, actor=operator)
    with pytest.raises(NotFound):
        action_decide(number="A99999", approve=True, actor=operator)
    with pytest.raises(NotFound):
        action_decide(number="nonsense", approve=True, actor=operator)


def test_action_numbers_come_from_the_database_id():
    order = OrderFactory()
    agent_refund(order.customer, order_id=order.pk, reason_category="확인필요")
    first = ActionRecord.objects.get()
    first.events.all().delete()
    ActionRecord.objects.all().delete()  # a count-based number would now repeat A00001
    second = agent_refund(order.customer, order_id=order.pk, reason_category="확인필요")
    assert second.number != first.number
    assert second.number == f"A{ActionRecord.objects.get().pk:05d}"


def test_the_return_windows_are_read_from_settings_at_each_request(delivered, settings):
    # Delivered 26 days before the shop's today: past a 7-day window.
    with pytest.raises(Refused, match=r"\(7일\)"):
        agent_refund(delivered.customer, order_id=delivered.pk, reason_category="CHANGE_OF_MIND")
    settings.CS_RETURN_DAYS = 30
    record = agent_refund(delivered.customer, order_id=delivered.pk, reason_category="CHANGE_OF_MIND")
    assert (record.kind, record.status) == ("REFUND", "PENDING")

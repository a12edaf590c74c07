"""The approval queue in the Django admin, driven through real admin requests."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from actions.models import ActionRecord
from actions.tests.factories import agent_refund
from common.display import won
from orders.models import Order
from orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db


CHANGELIST = "admin:actions_actionrecord_changelist"


@pytest.fixture
def two_pending(customer):
    """A defect refund of a 38,000원 order delivered 26 days ago, and a cancellation of one not yet shipped."""
    delivered = OrderFactory(customer=customer, delivered_days_ago=26, amount=Decimal("38000"))
    preparing = OrderFactory(customer=customer, status=Order.Status.PREPARING)
    agent_refund(customer, order_id=delivered.pk, reason_category="상품하자", reason="녹")
    agent_refund(customer, order_id=preparing.pk, reason_category="확인필요")
    return list(ActionRecord.objects.order_by("id"))


def _post_action(client, action, records, *, confirm: bool = True):
    """The admin action as a browser sends it; with `confirm`, also the confirmation page's 'post=yes'."""
    selected = {"action": action, "_selected_action": [r.pk for r in records]}
    response = client.post(reverse(CHANGELIST) + "?status__exact=PENDING", selected, follow=True)
    if not confirm or response.templates[0].name != "admin/actions/actionrecord/bulk_decide_confirm.html":
        return response
    return client.post(reverse(CHANGELIST) + "?status__exact=PENDING", {**selected, "post": "yes"}, follow=True)


def test_queue_opens_on_pending_and_shows_the_columns(client, operator, two_pending):
    client.force_login(operator)
    response = client.get(reverse(CHANGELIST))
    assert response.status_code == 302 and response["Location"].endswith("?status__exact=PENDING")
    page = client.get(response["Location"]).content.decode()
    # The records' own numbers, not "A0000": on PostgreSQL ids keep counting across tests (sequences are
    # not rolled back), so after ten records elsewhere in the run the numbers are A00010 and up.
    numbers = tuple(record.number for record in two_pending)
    refunded_order = two_pending[0].order_id
    for text in (*numbers, "환불요청", "주문취소요청", refunded_order, "38,000원", "상품하자", "26일", "승인대기"):
        assert text in page


def test_bulk_approve_asks_first_listing_each_order_amount_reason_and_the_total(client, operator, two_pending):
    refund, cancel = two_pending
    client.force_login(operator)
    page = _post_action(client, "approve_selected", two_pending, confirm=False)
    assert page.templates[0].name == "admin/actions/actionrecord/bulk_decide_confirm.html"
    text = page.content.decode()
    amounts = {r.pk: (r.refund_amount if r.refund_amount is not None else r.order.amount) for r in two_pending}
    for record in two_pending:
        row = text[text.index(f'id="cs-bulk-{record.pk}"') :].split("</tr>")[0]
        assert record.number in row and record.order_id in row and won(amounts[record.pk]) in row
    assert "상품하자 · 녹" in text and "확인필요" in text  # the reason, as the record page gives it
    assert f'id="cs-bulk-total">{won(sum(amounts.values()))}</b>' in text
    assert f"2건 · 합계 {won(sum(amounts.values()))} 승인" in text
    assert (
        'name="post" value="yes"' in text
        and 'id="cs-bulk-cancel" href="/admin/actions/actionrecord/?status__exact=PENDING"' in text
    )
    assert set(ActionRecord.objects.values_list("status", flat=True)) == {"PENDING"}  # nothing decided yet


def test_a_record_decided_after_the_confirmation_was_shown_is_reported_not_decided_again(client, operator, two_pending):
    from actions.services import action_decide

    refund, cancel = two_pending
    client.force_login(operator)
    page = _post_action(client, "approve_selected", two_pending, confirm=False).content.decode()
    assert f'id="cs-bulk-{cancel.pk}"' in page
    action_decide(number=cancel.pk, approve=False, actor=operator)  # a colleague, meanwhile
    confirmed = client.post(
        reverse(CHANGELIST) + "?status__exact=PENDING",
        {"action": "approve_selected", "_selected_action": [refund.pk, cancel.pk], "post": "yes"},
        follow=True,
    ).content.decode()
    assert "1건을 승인했습니다" in confirmed and f"승인하지 못함 — {cancel.number}: " in confirmed
    assert dict(ActionRecord.objects.values_list("pk", "status")) == {refund.pk: "APPROVED", cancel.pk: "REJECTED"}


def test_records_no_longer_waiting_are_listed_apart_and_left_out_of_the_total(client, operator, two_pending):
    from actions.services import action_decide

    refund, cancel = two_pending
    action_decide(number=cancel.pk, approve=False, actor=operator)
    client.force_login(operator)
    page = client.post(
        reverse(CHANGELIST) + "?o=1",  # every status
        {"action": "approve_selected", "_selected_action": [refund.pk, cancel.pk]},
    ).content.decode()
    skipped = page[page.index('id="cs-bulk-skipped"') :]
    assert cancel.number in skipped and "반려" in skipped and f'id="cs-bulk-{cancel.pk}"' not in page
    amount = refund.refund_amount if refund.refund_amount is not None else refund.order.amount
    assert f"1건 · 합계 {won(amount)} 승인" in page


def test_a_record_whose_shop_is_paused_says_so_in_the_bulk_confirmation(client, operator, two_pending, monkeypatch):
    from actions import execution

    refund, cancel = two_pending
    shops = {refund.order_id: execution.ShopExecutor("myshop", paused=True)}
    monkeypatch.setattr(execution, "_executor", shops.get)  # the seam the integration app fills in
    client.force_login(operator)
    page = _post_action(client, "approve_selected", two_pending, confirm=False).content.decode()
    assert f'id="cs-shop-paused-{refund.pk}"' in page and f'id="cs-shop-paused-{cancel.pk}"' not in page
    assert "지금 연동이 중지되어 있습니다" in page and "쇼핑몰에 처리를 요청" in page
    rejecting = _post_action(client, "reject_selected", two_pending, confirm=False).content.decode()
    assert "cs-shop-paused-" not in rejecting  # a rejection moves no money: nothing to wait for


def test_cancelling_the_confirmation_changes_nothing(client, operator, two_pending):
    client.force_login(operator)
    page = _post_action(client, "reject_selected", two_pending, confirm=False).content.decode()
    assert "2건 · 합계" in page and "반려</button>" in page
    back = client.get(reverse(CHANGELIST) + "?status__exact=PENDING")  # the cancel link
    assert back.status_code == 200
    assert set(ActionRecord.objects.values_list("status", flat=True)) == {"PENDING"}


def test_more_than_the_bulk_limit_is_refused_before_any_page(client, operator, two_pending, monkeypatch):
    from actions import admin as actions_admin

    monkeypatch.setattr(actions_admin, "BULK_DECIDE_MAX", 1)
    client.force_login(operator)
    response = _post_action(client, "approve_selected", two_pending, confirm=False).content.decode()
    assert "한 번에 1건까지 승인할 수 있습니다" in response
    assert set(ActionRecord.objects.values_list("status", flat=True)) == {"PENDING"}


def test_operator_approves_through_admin_action(client, operator, two_pending):
    client.force_login(operator)
    response = _post_action(client, "approve_selected", two_pending)
    assert "2건을 승인했습니다" in response.content.decode()
    assert set(ActionRecord.objects.values_list("status", flat=True)) == {"APPROVED"}
    refund, cancel = two_pending
    assert Order.objects.get(pk=refund.order_id).status == "RETURNED"
    assert Order.objects.get(pk=cancel.order_id).status == "CANCELLED"


def test_operator_rejects_and_refusals_are_reported(client, operator, two_pending):
    refund, cancel = two_pending
    Order.objects.filter(pk=cancel.order_id).update(status="SHIPPING")
    client.force_login(operator)
    response = _post_action(client, "approve_selected", two_pending).content.decode()
    assert "1건을 승인했습니다" in response and "승인하지 못함" in response and "배송중" in response
    response = _post_action(client, "reject_selected", [cancel]).content.decode()
    assert "1건을 반려했습니다" in response
    assert dict(ActionRecord.objects.values_list("pk", "status")) == {refund.pk: "APPROVED", cancel.pk: "REJECTED"}


def test_staff_without_decide_permission_cannot_decide(client, two_pending):
    viewer = get_user_model().objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_actionrecord"))
    client.force_login(viewer)
    page = client.get(reverse(CHANGELIST) + "?status__exact=PENDING")
    assert page.status_code == 200
    assert "approve_selected" not in page.content.decode()
    response = _post_action(client, "approve_selected", two_pending)
    assert response.status_code == 200
    assert set(ActionRecord.objects.values_list("status", flat=True)) == {"PENDING"}


def test_records_are_read_only_and_never_bulk_deleted(admin_client, two_pending):
    page = admin_client.get(reverse(CHANGELIST) + "?status__exact=PENDING").content.decode()
    assert "delete_selected" not in page
    detail = admin_client.get(reverse("admin:actions_actionrecord_change", args=[two_pending[0].pk]))
    assert detail.status_code == 200
    body = detail.content.decode()
    assert 'name="_save"' not in body
    assert "처리 이력" in body and "승인대기" in body  # audit events are visible on the record
    assert admin_client.get(reverse("admin:actions_actionrecord_add")).status_code == 403


def test_queue_query_count_does_not_grow_with_rows(client, operator, customer, django_assert_max_num_queries):
    agent_refund(
        customer, order_id=OrderFactory(customer=customer, delivered_days_ago=26).pk, reason_category="상품하자"
    )
    client.force_login(operator)
    with django_assert_max_num_queries(12) as few:
        client.get(reverse(CHANGELIST) + "?status__exact=PENDING")
    for order in (
        OrderFactory(customer=customer, status=Order.Status.PREPARING),
        OrderFactory(customer=customer, delivered_days_ago=2),
    ):
        agent_refund(customer, order_id=order.pk, reason_category="상품하자")
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(reverse(CHANGELIST) + "?status__exact=PENDING")


@pytest.mark.parametrize(
    "url",
    [
        "admin:orders_order_changelist",
        "admin:orders_customer_changelist",
        "admin:orders_product_changelist",
        "admin:tickets_ticket_changelist",
    ],
)
def test_shop_models_are_browsable_and_searchable(admin_client, url):
    order = OrderFactory()
    response = admin_client.get(reverse(url) + f"?q={order.customer_id}")
    assert response.status_code == 200

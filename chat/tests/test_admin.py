"""What operators read of the agent's tool calls: Korean tool names in the tool-call admin, and the customer's
refused tool calls beside an approval record (registered by chat/admin.py on the actions record page)."""

import importlib
import re

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import timezone

from actions.models import ActionRecord
from actions.policy import CLARIFY_REASON
from chat.models import ChatMessage, Conversation, ToolCall
from llm.testing import text_message, tool_calls_message
from orders.models import Customer

pytestmark = pytest.mark.django_db

ORDER = "HR20260628003"  # C003's, delivered 26 days before CS_TODAY: 단순변심 refused, 상품하자 accepted
REFUSED = "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다."
backfill = importlib.import_module("chat.migrations.0003_toolcall_order_id").backfill_order_ids


def call(name, arguments):
    return (name, arguments)


def turn(api, model, *calls):
    model.push(tool_calls_message(list(calls)), text_message("안내드립니다."))
    response = api.post("/api/chat/", {"message": "환불해 주세요"}, format="json")
    assert response.status_code == 200, response.content


@pytest.fixture
def refused_then_asked_again(c003_api, scripted_model):
    """단순변심 refused, then (minutes later) the same order as 상품하자: a pending refund to decide."""
    turn(c003_api, scripted_model, call("request_refund", {"order_id": ORDER, "reason_category": "단순변심"}))
    turn(
        c003_api,
        scripted_model,
        call("get_my_orders", {}),
        call("request_refund", {"order_id": ORDER, "reason_category": "상품하자", "reason": "녹"}),
    )
    return ActionRecord.objects.get(order_id=ORDER)


def test_tool_calls_record_the_order_asked_about(refused_then_asked_again):
    rows = list(ToolCall.objects.order_by("id").values_list("tool", "ok", "order_id"))
    assert rows == [
        ("request_refund", False, ORDER),
        ("get_my_orders", True, ""),  # about no order: empty, not unknown
        ("request_refund", True, ORDER),
    ]


def test_the_record_page_lists_the_customers_refused_tool_calls_on_the_order(
    client, operator_user, refused_then_asked_again
):
    refusal = ToolCall.objects.get(ok=False)
    client.force_login(operator_user)
    page = client.get(f"/admin/actions/actionrecord/{refused_then_asked_again.pk}/change/").content.decode()
    section = page[page.index('id="cs-section-tool-refusals"') :]
    when = timezone.localtime(refusal.created_at)
    line = f"{when.year}년 {when.month}월 {when.day}일 {when:%H:%M} · 환불 요청 · {REFUSED}"
    assert line in section
    assert re.search(r'title="request_refund">[^<]*환불 요청', section)  # the English name only as a tooltip


def test_refusals_of_other_orders_other_customers_and_reason_questions_are_not_listed(
    client, operator_user, refused_then_asked_again
):
    ToolCall.objects.update(order_id="HR20260721001")  # now about another order
    message = ToolCall.objects.first().message
    ToolCall.objects.create(message=message, tool="request_refund", ok=False, reason=CLARIFY_REASON, order_id=ORDER)
    ToolCall.objects.create(  # the registry's own error: says nothing about the order
        message=message, tool="request_refund", ok=False, error="invalid_arguments", reason="x", order_id=ORDER
    )
    other = Conversation.objects.create(customer=Customer.objects.exclude(pk="C003").first())
    ToolCall.objects.create(  # another customer asking about the same order id
        message=ChatMessage.objects.create(conversation=other, role="assistant", content="-"),
        tool="request_refund",
        ok=False,
        reason=REFUSED,
        order_id=ORDER,
    )
    client.force_login(operator_user)
    page = client.get(f"/admin/actions/actionrecord/{refused_then_asked_again.pk}/change/").content.decode()
    section = page[page.index('id="cs-section-tool-refusals"') :]
    assert REFUSED not in section and "사유를 확인해야 합니다" not in section
    assert '<p class="help">없음</p>' in section


def test_the_tool_call_admin_reads_korean_tool_names(client, operator_user, refused_then_asked_again):
    client.force_login(operator_user)
    listing = client.get("/admin/chat/toolcall/").content.decode()
    refused = ToolCall.objects.get(ok=False)
    detail = client.get(f"/admin/chat/toolcall/{refused.pk}/change/").content.decode()
    filtered = client.get("/admin/chat/toolcall/", {"tool": "request_refund"}).content.decode()
    for page in (listing, detail, filtered):
        visible = re.sub(r'title="[^"]*"|href="[^"]*"|<[^>]*>', " ", page)
        assert "환불 요청" in visible
        assert "request_refund" not in visible and "get_my_orders" not in visible
    assert "주문 조회" in listing  # the filter's choices and the column
    assert ORDER in detail and REFUSED in detail


def test_the_migration_backfills_order_ids_from_action_records_and_not_found_answers(refused_then_asked_again):
    record = refused_then_asked_again
    ToolCall.objects.update(order_id=None)
    message = ToolCall.objects.first().message
    unknown = ToolCall.objects.create(
        message=message, tool="request_refund", ok=False, reason="주문번호 'HR999'을(를) 찾을 수 없습니다."
    )
    backfill(apps, None)
    by_id = dict(ToolCall.objects.values_list("id", "order_id"))
    done = ToolCall.objects.get(action_number=record.number)
    assert by_id[done.pk] == ORDER and by_id[unknown.pk] == "HR999"
    assert by_id[ToolCall.objects.get(ok=False, action_number="", reason=REFUSED).pk] is None  # not recoverable


def test_the_ticket_page_lists_the_customers_requests_in_its_side_panel(client, operator_user, c003):
    """chat registers the section (tickets.sections): actions and tickets are independent of each other."""
    from actions.tests.factories import defect_refund
    from tickets.services import ticket_create

    record = defect_refund("하자")
    ticket = ticket_create(
        customer=c003, category="결제", subject="결제 오류", body="?", source="API", author=c003.user
    )
    client.force_login(operator_user)
    html = client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    side = html[html.index('id="cs-side"') : html.index("</aside>")]
    link = reverse("admin:actions_actionrecord_change", args=[record.pk])
    assert f'<a href="{link}">{record.number}</a> · 환불요청 · 승인대기 · HR20260721001' in side

"""The ticket admin: status is read-only (it changes through services, each writing its event); edits go
through `ticket_edit`; 이력 and 주문 이력 are shown read-only where an operator looks."""

from __future__ import annotations

import pytest
from django.urls import reverse

from common.actors import Actor
from common.tests.factories import UserFactory
from orders.services import order_cancel
from orders.tests.factories import CustomerFactory, OrderFactory, desk_operator
from tickets.models import Ticket
from tickets.services import ticket_reply_add
from tickets.tests.factories import TagFactory, TicketFactory
from tickets.tests.pages import unlabelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def _form(ticket, **changes):
    data = {"category": ticket.category, "subject": ticket.subject, "tags": []}
    for prefix in ("messages", "events"):
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    data.update(changes)
    return data


def test_the_status_is_not_editable_in_the_admin(admin_client):
    ticket = TicketFactory()
    url = reverse("admin:tickets_ticket_change", args=[ticket.pk])
    response = admin_client.post(url, _form(ticket, status="CLOSED"))
    assert response.status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == "OPEN"
    assert not ticket.events.exists()  # nothing changed, nothing recorded


def test_an_admin_edit_goes_through_the_service_and_is_recorded(admin_client):
    ticket = TicketFactory()
    tag = TagFactory(name="배송지연")
    url = reverse("admin:tickets_ticket_change", args=[ticket.pk])
    response = admin_client.post(url, _form(ticket, category="PAYMENT", tags=[tag.pk]))
    assert response.status_code == 302
    ticket.refresh_from_db()
    assert ticket.category == "PAYMENT" and list(ticket.tags.values_list("name", flat=True)) == ["배송지연"]
    assert list(ticket.events.order_by("id").values_list("type", "actor_type")) == [
        ("EDITED", "OPERATOR"),
        ("TAGS_CHANGED", "OPERATOR"),
    ]


def test_the_close_action_calls_the_service_per_ticket(admin_client):
    tickets = [TicketFactory(), TicketFactory(status=Ticket.Status.CLOSED)]
    response = admin_client.post(
        reverse("admin:tickets_ticket_changelist"),
        {"action": "close_tickets", "_selected_action": [t.pk for t in tickets]},
    )
    assert response.status_code == 302
    assert set(Ticket.objects.values_list("status", flat=True)) == {"CLOSED"}
    assert [e.payload for e in tickets[0].events.all()] == [{"before": "OPEN", "after": "CLOSED"}]
    assert not tickets[1].events.exists()  # already closed: no change, no event


def test_the_ticket_page_shows_its_history_in_korean(admin_client):
    ticket = TicketFactory()
    ticket_reply_add(ticket=ticket, body="안내드립니다.", actor=UserFactory(username="상담원1"))
    page = admin_client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert "이력" in page and "상담원 답변" in page and "접수 → 답변완료" in page


def test_the_order_page_shows_its_history_in_korean(admin_client):
    order = OrderFactory()
    order_cancel(order=order, actor=Actor("SYSTEM", "테스트"), reference="A00009")
    page = admin_client.get(reverse("admin:orders_order_change", args=[order.pk])).content.decode()
    assert "주문 이력" in page and "결제완료 → 취소완료" in page and "재고 복원" in page and "처리번호 A00009" in page


# --- working as a team: the list and the ticket page ---------------------------------------------------------------
HANDLER = (
    "tickets.view_ticket",
    "tickets.change_ticket",
    "tickets.view_ticketmessage",
    "tickets.view_ticketevent",
    "tickets.reply_ticket",
)


@pytest.fixture
def kim_client(client):
    from common.tests.factories import operator_with

    user = operator_with(*HANDLER, username="kim")
    client.force_login(user)
    client.user = user
    return client


def test_the_list_sorts_by_due_time_and_shows_sla_in_colour_and_word(kim_client, settings, shop_hours):
    from tickets.services import ticket_create

    settings.CS_AI_DRAFTS_ENABLED = False
    settings.CS_NOW = "2026-08-13T10:00:00+09:00"
    customer = TicketFactory().customer

    def inquiry(category):
        return ticket_create(customer=customer, category=category, subject="문의", body="?", source="API", author=None)

    normal, payment = inquiry("배송"), inquiry("결제")  # 보통: due Fri 10:00; 높음: due Thu 12:00
    settings.CS_NOW = "2026-08-13T11:40:00+09:00"  # 20 minutes left of the payment's 2 hours
    page = kim_client.get(reverse("admin:tickets_ticket_changelist")).content.decode()
    assert page.index(f">{payment.number}<") < page.index(f">{normal.number}<")  # the nearer due time first
    assert 'class="cs-sla cs-sla-at_risk" style="color:#b45309;font-weight:bold;white-space:nowrap"' in page
    assert "● 기한 임박" in page
    assert "● 기한 내" in page  # a word with every colour
    assert "1시간 40분" in page  # 대기 시간: since the customer's message
    for header in ("담당자", "우선순위", "대기 시간", "요약"):
        assert f">{header}<" in page or f">{header}</a>" in page
    assert "미배정" in page and "white-space:nowrap" in page and 'title="문의"' in page
    for choice in ("내 티켓", "미배정", "전체"):
        assert choice in page


def test_the_assignee_filter_in_the_list(kim_client):
    mine, nobodys = TicketFactory(assignee=kim_client.user), TicketFactory()
    url = reverse("admin:tickets_ticket_changelist")
    page = kim_client.get(url + "?assignee=me").content.decode()
    assert f">{mine.number}<" in page and f">{nobodys.number}<" not in page
    page = kim_client.get(url + "?assignee=none").content.decode()
    assert f">{nobodys.number}<" in page and f">{mine.number}<" not in page


def test_take_it_myself_and_release_from_the_ticket_page(kim_client):
    ticket = TicketFactory()
    url = reverse("admin:tickets_ticket_change", args=[ticket.pk])
    page = kim_client.get(url).content.decode()
    assert 'id="cs-take"' in page and "내가 맡기" in page and 'id="cs-assign"' not in page  # no assign permission
    kim_client.post(reverse("admin:tickets_ticket_assign", args=[ticket.pk]), {"assignee": "me"})
    ticket.refresh_from_db()
    assert ticket.assignee == kim_client.user
    page = kim_client.get(url).content.decode()
    assert 'id="cs-release"' in page and "담당자 <b>kim</b>" in page
    kim_client.post(reverse("admin:tickets_ticket_assign", args=[ticket.pk]), {"assignee": ""})
    ticket.refresh_from_db()
    assert ticket.assignee is None
    assert list(ticket.events.values_list("type", flat=True)) == ["ASSIGNED", "ASSIGNED"]
    page = kim_client.get(url).content.decode()
    assert "담당자 변경" in page and "- → kim" in page and "kim → -" in page


def test_assigning_someone_else_from_the_page_needs_the_permission(kim_client):
    from common.tests.factories import operator_with

    lee = operator_with(*HANDLER, username="lee")
    ticket = TicketFactory()
    response = kim_client.post(
        reverse("admin:tickets_ticket_assign", args=[ticket.pk]), {"assignee": "lee"}, follow=True
    )
    assert "배정 권한이 필요합니다" in response.content.decode()
    ticket.refresh_from_db()
    assert ticket.assignee is None
    boss = operator_with(*HANDLER, "tickets.assign_ticket", username="boss")
    kim_client.force_login(boss)
    page = kim_client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert 'id="cs-assign"' in page and '<option value="lee">lee</option>' in page
    kim_client.post(reverse("admin:tickets_ticket_assign", args=[ticket.pk]), {"assignee": "lee"})
    ticket.refresh_from_db()
    assert ticket.assignee == lee


def test_priority_is_changed_on_the_page_and_recorded(kim_client):
    ticket = TicketFactory()
    kim_client.post(reverse("admin:tickets_ticket_priority", args=[ticket.pk]), {"priority": "URGENT"})
    ticket.refresh_from_db()
    assert ticket.priority == "URGENT"
    page = kim_client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert "우선순위 변경" in page and "보통 → 긴급" in page


def test_the_header_toggles_availability(kim_client):
    from tickets.models import OperatorStatus

    page = kim_client.get(reverse("admin:index")).content.decode()
    assert 'id="cs-availability"' in page and "○ 자리 비움" in page
    kim_client.post(reverse("admin:tickets_ticket_availability"), {"available": "1", "next": "/admin/"})
    assert OperatorStatus.objects.get(user=kim_client.user).available
    assert "● 상담 가능" in kim_client.get(reverse("admin:index")).content.decode()
    kim_client.post(reverse("admin:tickets_ticket_availability"), {"available": "0", "next": "https://evil.example/"})
    assert not OperatorStatus.objects.get(user=kim_client.user).available


# --- the ticket page made for work ---------------------------------------------------------------------------------
def test_the_ticket_page_shows_the_customer_masked_with_their_orders_and_earlier_tickets(client):
    """(The customer's requests come from the chat app's section: chat/tests/test_admin.py.)"""
    from tickets.services import ticket_create

    customer = CustomerFactory(phone="010-5523-1003", email="jihoon.park@example.com")
    order = OrderFactory(customer=customer, delivered_days_ago=2)
    earlier = ticket_create(
        customer=customer, category="배송", subject="지난 문의", body="?", source="API", author=customer.user
    )
    ticket = ticket_create(
        customer=customer, category="결제", subject="결제 오류", body="?", source="API", author=customer.user
    )
    client.force_login(desk_operator())
    html = client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    side = html[html.index('id="cs-side"') : html.index("</aside>")]
    assert customer.phone not in html and customer.email not in html  # masked, as everywhere
    assert "●●●●" in side and f"{customer.email[:2]}●●●@{customer.email.split('@')[1]}" in side
    customer_id = customer.customer_id
    assert f'<a href="{reverse("admin:orders_customer_change", args=[customer_id])}">{customer_id}</a>' in side
    assert f'<a href="{reverse("admin:orders_order_change", args=[order.pk])}">{order.pk}</a>' in side
    assert f'<a href="{reverse("admin:tickets_ticket_change", args=[earlier.pk])}">{earlier.number}</a>' in side
    assert f">{ticket.number}</a>" not in side  # not itself


def test_every_control_on_the_ticket_page_has_a_label_and_the_reply_box_comes_first(client, customer, settings):
    from tickets.services import ticket_create, ticket_message_add

    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = ticket_create(
        customer=customer, category="배송", subject="배송", body="첫 질문", source="API", author=customer.user
    )
    for n in range(5):
        ticket_message_add(ticket=ticket, body=f"추가 질문 {n}", author=customer.user)
    client.force_login(desk_operator())
    html = client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert unlabelled(html) == []
    # The reply box sits beside the newest messages, above the ticket's form; older messages fold away.
    assert html.index('id="cs-reply-body"') < html.index('id="ticket_form"')
    older = html[html.index('id="cs-older"') : html.index("</details>", html.index('id="cs-older"'))]
    assert "이전 대화 2건 보기" in older and "첫 질문" in older and "추가 질문 4" not in older
    assert "추가 질문 4" in html[html.index('id="cs-conversation"') : html.index('id="cs-answer"')]


def test_the_checker_finds_an_unlabelled_textarea():
    assert unlabelled('<textarea name="body"></textarea>') == ["textarea name=body id=None"]
    assert unlabelled('<label for="b">답변</label><textarea id="b"></textarea>') == []
    assert unlabelled('<label><input type="checkbox" name="x"> 종료</label>') == []
    assert unlabelled('<input type="hidden" name="t">') == []

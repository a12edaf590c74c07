"""The ticket admin: status is read-only (it changes through services, each writing its event); edits go
through `ticket_edit`; 이력 and 주문 이력 are shown read-only where an operator looks."""

from __future__ import annotations

import pytest
from django.urls import reverse

from common.actors import Actor
from common.tests.factories import UserFactory
from orders.services import order_cancel
from orders.tests.factories import OrderFactory
from tickets.models import Ticket
from tickets.services import ticket_reply_add
from tickets.tests.factories import TagFactory, TicketFactory

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

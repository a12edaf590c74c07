"""A demo customer with a history across every table, placed in time so that a pinned clock years later finds
some of it past its period and some within."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from actions.models import ActionRecord
from actions.services import action_decide, address_change, refund_request
from chat.models import ChatMessage, Conversation, ToolCall
from common.actors import Actor
from common.clock import SEOUL
from diagnostics.models import ServiceEvent
from llm.models import LLMCall
from orders.models import Customer, Order, Product
from tickets.models import Ticket
from tickets.services import ticket_create, ticket_status_change

LATER = "2030-03-01T12:00:00+09:00"  # complaint cutoff 2027-03-01, money cutoff 2025-03-01, access 2028-03-01
NEW_ADDRESS = "서울특별시 강남구 테헤란로 1, 5층"


def at(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 12, 0, tzinfo=SEOUL)


@dataclass
class History:
    c003: Customer
    c005: Customer
    moved: ActionRecord
    refund: ActionRecord
    old_ticket: Ticket
    recent_ticket: Ticket
    old_chat: Conversation
    recent_chat: Conversation
    old_call: LLMCall
    recent_call: LLMCall
    old_event: ServiceEvent
    recent_event: ServiceEvent
    ancient_order: Order
    ancient_refund: ActionRecord


def _conversation(customer: Customer, updated: datetime, *, ticket_number: str = "") -> Conversation:
    conversation = Conversation.objects.create(customer=customer)
    ChatMessage.objects.create(conversation=conversation, role="customer", content="주문 배송지 바꿔 주세요")
    reply = ChatMessage.objects.create(conversation=conversation, role="assistant", content="변경했습니다.")
    ToolCall.objects.create(message=reply, tool="change_address", ok=True, ticket_number=ticket_number)
    Conversation.objects.filter(pk=conversation.pk).update(updated_at=updated)
    return conversation


def _service_event(customer: Customer, when: datetime) -> ServiceEvent:
    return ServiceEvent.objects.create(
        event_key=str(uuid.uuid4()), customer=customer, occurred_at=when, kind="REQUEST_LOG", name="/api/chat/"
    )


def _llm_call(when: datetime) -> LLMCall:
    call = LLMCall.objects.create(purpose="chat", model="offline", outcome="OK", latency_ms=5)
    LLMCall.objects.filter(pk=call.pk).update(created_at=when)
    return call


@pytest.fixture
def history(shop, settings) -> History:
    """Made on the shop's day (2026-07-27), read with the clock at LATER."""
    admin = get_user_model().objects.get(username="admin")
    c003 = Customer.objects.get(pk="C003")
    c005 = Customer.objects.get(pk="C005")
    Customer.objects.filter(pk__in=["C003", "C005"]).update(created_at=at(2026, 1, 1))
    agent = Actor.customer_agent(c003)
    moved = address_change(customer=c003, order_id="HR20260726002", new_address=NEW_ADDRESS, actor=agent)
    refund = refund_request(
        customer=c003, order_id="HR20260721001", reason_category="CHANGE_OF_MIND", reason="마음이 바뀜", actor=agent
    ).record
    refund = action_decide(number=refund.pk, approve=True, actor=admin)
    # Everything of C003's has finished by 2030: the orders were delivered long ago.
    Order.objects.filter(customer=c003).exclude(status__in=["DELIVERED", "CANCELLED", "RETURNED"]).update(
        status="DELIVERED", delivered_at=date(2026, 8, 1)
    )
    ActionRecord.objects.filter(customer=c003).update(created_at=at(2026, 7, 27))

    old_ticket = ticket_create(
        customer=c003, category="배송", subject="배송 문의", body="언제 와요? 010-1234-5678", source="API", author=None
    )
    ticket_status_change(ticket=old_ticket, status="CLOSED", actor=admin)
    Ticket.objects.filter(pk=old_ticket.pk).update(closed_at=at(2026, 8, 1))
    recent_ticket = ticket_create(
        customer=c005, category="배송", subject="배송 문의", body="아직 안 왔어요", source="API", author=None
    )
    ticket_status_change(ticket=recent_ticket, status="CLOSED", actor=admin)
    Ticket.objects.filter(pk=recent_ticket.pk).update(closed_at=at(2028, 1, 1))

    product = Product.objects.get(pk="P001")
    ancient_order = Order.objects.create(
        order_id="HR20240101001",
        customer=c005,
        product=product,
        option=product.options.first(),
        amount=Decimal("89000"),
        status="RETURNED",
        shipping_address="부산광역시 해운대구 센텀중앙로 79, 2104호",
        ordered_at=date(2024, 1, 1),
        delivered_at=date(2024, 1, 3),
    )
    ancient_refund = ActionRecord.objects.create(
        customer=c005,
        order=ancient_order,
        kind="REFUND",
        status="DONE",
        summary="환불",
        refund_amount=Decimal("89000"),
        requested_on=date(2024, 1, 5),
    )
    ActionRecord.objects.filter(pk=ancient_refund.pk).update(created_at=at(2024, 1, 5))
    return History(
        c003=c003,
        c005=c005,
        moved=moved,
        refund=refund,
        old_ticket=old_ticket,
        recent_ticket=recent_ticket,
        old_chat=_conversation(c003, at(2026, 7, 27), ticket_number=old_ticket.number),
        recent_chat=_conversation(c005, at(2029, 6, 1)),
        old_call=_llm_call(at(2026, 7, 27)),
        recent_call=_llm_call(at(2029, 6, 1)),
        old_event=_service_event(c003, at(2027, 6, 1)),
        recent_event=_service_event(c005, at(2029, 6, 1)),
        ancient_order=ancient_order,
        ancient_refund=ancient_refund,
    )

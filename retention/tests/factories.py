"""A customer with a history across every table, placed in time so that a pinned clock years later finds some of it
past its period and some within, and another customer who is still within every period."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

import pytest
from django.contrib.auth.models import AbstractBaseUser

from actions.models import ActionRecord
from actions.services import action_decide, address_change, refund_request
from chat.models import ChatMessage, Conversation, ToolCall
from common.actors import Actor
from common.clock import SEOUL
from common.tests.factories import UserFactory, superuser
from diagnostics.models import ServiceEvent
from llm.models import LLMCall
from orders.models import Customer, Order
from orders.tests.factories import CustomerFactory, OrderFactory
from tickets.models import Ticket
from tickets.services import ticket_create, ticket_status_change

LATER = "2030-03-01T12:00:00+09:00"  # complaint cutoff 2027-03-01, money cutoff 2025-03-01, access 2028-03-01
NEW_ADDRESS = "서울특별시 강남구 테헤란로 1, 5층"
OLD_ADDRESS = "서울특별시 송파구 올림픽로 300, 101동 1502호"  # where the customer's orders went first


def at(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 12, 0, tzinfo=SEOUL)


@dataclass
class History:
    admin: AbstractBaseUser  # decides the refund and closes the tickets
    customer: Customer  # everything of theirs is from 2026: past the complaint period by LATER
    other: Customer  # chatted and complained recently (2028-2029): within it
    orders: list[Order]  # the customer's, all of them
    refunded: Order  # one of `orders`, refunded in full
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


def _customer(name: str, phone: str, email: str) -> Customer:
    """A customer with contact data on their row and on their login, both of which the sweep must clear."""
    customer = CustomerFactory(name=name, phone=phone, email=email, user=UserFactory(email=email))
    Customer.objects.filter(pk=customer.pk).update(created_at=at(2026, 1, 1))
    return customer


@pytest.fixture
def history(db, settings) -> History:
    """Made on the shop's day (2026-07-27), read with the clock at LATER."""
    admin = superuser(username="admin")
    customer = _customer("박보존", "010-5523-1003", "bojon.park@example.com")
    other = _customer("정최근", "010-6645-1005", "choegeun.jung@example.com")
    agent = Actor.customer_agent(customer)
    refunded = OrderFactory(
        customer=customer, delivered_days_ago=2, amount=Decimal("89000"), shipping_address=OLD_ADDRESS
    )  # within the change-of-mind window
    preparing = OrderFactory(customer=customer, status=Order.Status.PREPARING, shipping_address=OLD_ADDRESS)
    moved = address_change(customer=customer, order_id=preparing.order_id, new_address=NEW_ADDRESS, actor=agent)
    refund = refund_request(
        customer=customer,
        order_id=refunded.order_id,
        reason_category="CHANGE_OF_MIND",
        reason="마음이 바뀜",
        actor=agent,
    ).record
    refund = action_decide(number=refund.pk, approve=True, actor=admin)
    # Everything of the customer's has finished by 2030: the orders were delivered long ago.
    Order.objects.filter(customer=customer).exclude(status__in=["DELIVERED", "CANCELLED", "RETURNED"]).update(
        status="DELIVERED", delivered_at=date(2026, 8, 1)
    )
    ActionRecord.objects.filter(customer=customer).update(created_at=at(2026, 7, 27))

    old_ticket = ticket_create(
        customer=customer,
        category="배송",
        subject="배송 문의",
        body="언제 와요? 010-1234-5678",
        source="API",
        author=None,
    )
    ticket_status_change(ticket=old_ticket, status="CLOSED", actor=admin)
    Ticket.objects.filter(pk=old_ticket.pk).update(closed_at=at(2026, 8, 1))
    recent_ticket = ticket_create(
        customer=other, category="배송", subject="배송 문의", body="아직 안 왔어요", source="API", author=None
    )
    ticket_status_change(ticket=recent_ticket, status="CLOSED", actor=admin)
    Ticket.objects.filter(pk=recent_ticket.pk).update(closed_at=at(2028, 1, 1))

    ancient_order = OrderFactory(
        customer=other,
        amount=Decimal("89000"),
        status="RETURNED",
        shipping_address="부산광역시 해운대구 센텀중앙로 79, 2104호",
        ordered_at=date(2024, 1, 1),
        delivered_at=date(2024, 1, 3),
    )
    ancient_refund = ActionRecord.objects.create(
        customer=other,
        order=ancient_order,
        kind="REFUND",
        status="DONE",
        summary="환불",
        refund_amount=ancient_order.amount,
        requested_on=date(2024, 1, 5),
    )
    ActionRecord.objects.filter(pk=ancient_refund.pk).update(created_at=at(2024, 1, 5))
    return History(
        admin=admin,
        customer=customer,
        other=other,
        orders=[refunded, preparing],
        refunded=refunded,
        moved=moved,
        refund=refund,
        old_ticket=old_ticket,
        recent_ticket=recent_ticket,
        old_chat=_conversation(customer, at(2026, 7, 27), ticket_number=old_ticket.number),
        recent_chat=_conversation(other, at(2029, 6, 1)),
        old_call=_llm_call(at(2026, 7, 27)),
        recent_call=_llm_call(at(2029, 6, 1)),
        old_event=_service_event(customer, at(2027, 6, 1)),
        recent_event=_service_event(other, at(2029, 6, 1)),
        ancient_order=ancient_order,
        ancient_refund=ancient_refund,
    )

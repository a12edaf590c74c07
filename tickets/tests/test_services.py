"""A customer message and its draft request are one transaction: both stored, or neither."""

import pytest
from django.db import IntegrityError, transaction

from common.errors import InvalidState
from common.models import OutboxMessage
from common.tests.factories import operator_with
from orders.tests.factories import CustomerFactory
from tickets.models import Ticket, TicketEvent
from tickets.services import (
    BODY_MAX,
    DRAFT_REQUESTED,
    _open_or_create,
    ticket_create,
    ticket_edit,
    ticket_message_add,
    ticket_reply_add,
    ticket_status_change,
    ticket_tags_add,
)
from tickets.tests.factories import TagFactory, TicketFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_customer_message_writes_one_draft_request_with_its_ids(customer, settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the request, not the pipeline, is under test
    ticket = ticket_create(
        customer=customer, category="배송", subject="배송", body="언제?", source="API", author=customer.user
    )
    follow_up = ticket_message_add(ticket=ticket, body="아직이요?", author=customer.user)
    first = ticket.messages.order_by("id").first()
    # Only the draft requests: opening the ticket also writes one `shop.event` (ticket.created) for a shop.
    requests = OutboxMessage.objects.filter(topic=DRAFT_REQUESTED)
    rows = list(requests.order_by("id").values_list("topic", "dedupe_key", "payload"))
    assert rows == [
        (DRAFT_REQUESTED, f"draft.requested:{first.pk}", {"ticket_id": ticket.pk, "message_id": first.pk}),
        (DRAFT_REQUESTED, f"draft.requested:{follow_up.pk}", {"ticket_id": ticket.pk, "message_id": follow_up.pk}),
    ]
    assert set(requests.values_list("status", flat=True)) == {"DISPATCHED"}
    shop_event = f"shop.event:ticket.created:{ticket.pk}"
    assert OutboxMessage.objects.filter(topic="shop.event", dedupe_key=shop_event).exists()


def test_a_rolled_back_message_leaves_no_request(customer):
    with pytest.raises(RuntimeError), transaction.atomic():
        ticket_create(
            customer=customer, category="배송", subject="배송", body="언제?", source="API", author=customer.user
        )
        raise RuntimeError("the surrounding change failed")
    assert not OutboxMessage.objects.exists()


# --- audit: one TicketEvent per state change, in the change's transaction ------------------------
def _events(ticket):
    return list(ticket.events.order_by("id").values_list("type", "actor_type", "actor_id", "payload"))


def test_ticket_create_records_created_with_the_customer_as_actor(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    customer = CustomerFactory()
    ticket = ticket_create(
        customer=customer, category="배송", subject="배송", body="언제?", source="API", author=customer.user
    )
    message = ticket.messages.get()
    assert _events(ticket) == [
        (
            "CREATED",
            "CUSTOMER",
            customer.user.pk,
            {"source": "API", "category": "DELIVERY", "status": "OPEN", "order_id": None, "message_id": message.pk},
        )
    ]


def test_staff_filed_ticket_records_staff_as_actor(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    customer = CustomerFactory()
    staff = operator_with()
    ticket = ticket_create(
        customer=customer, category="결제", subject="결제", body="전화 문의", source="STAFF", author=staff
    )
    event = ticket.events.get()
    assert (event.actor_type, event.actor_id, event.actor_label) == (
        "STAFF",
        staff.pk,
        f"{staff.username} → {customer.pk}",
    )


def test_follow_up_on_answered_ticket_records_message_and_reopening(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = TicketFactory(status=Ticket.Status.ANSWERED)
    message = ticket_message_add(ticket=ticket, body="아직이요?", author=ticket.customer.user)
    ticket.refresh_from_db()
    assert ticket.status == "OPEN"
    uid = ticket.customer.user_id
    assert _events(ticket) == [
        ("MESSAGE_ADDED", "CUSTOMER", uid, {"message_id": message.pk, "author_type": "CUSTOMER"}),
        ("REOPENED", "CUSTOMER", uid, {"before": "ANSWERED", "after": "OPEN"}),
    ]


def test_follow_up_on_open_ticket_records_no_reopening(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = TicketFactory()
    ticket_message_add(ticket=ticket, body="추가", author=ticket.customer.user)
    assert [e[0] for e in _events(ticket)] == ["MESSAGE_ADDED"]


@pytest.mark.parametrize(("close", "status"), [(False, "ANSWERED"), (True, "CLOSED")])
def test_operator_reply_stores_message_moves_status_and_records_both(close, status):
    ticket = TicketFactory()
    op = operator_with()
    message = ticket_reply_add(ticket=ticket, body="  내일 도착합니다. ", actor=op, close=close)
    ticket.refresh_from_db()
    assert (message.author_type, message.author_id, message.body) == ("OPERATOR", op.pk, "내일 도착합니다.")
    assert ticket.status == status
    assert _events(ticket) == [
        ("REPLIED", "OPERATOR", op.pk, {"message_id": message.pk, "close": close}),
        ("STATUS_CHANGED", "OPERATOR", op.pk, {"before": "OPEN", "after": status}),
    ]
    # An operator's reply asks for no draft; it tells the shop (ticket.replied). No e-mail row: this customer
    # has no address.
    assert list(OutboxMessage.objects.values_list("topic", "payload__type")) == [("shop.event", "ticket.replied")]


def test_second_reply_on_answered_ticket_records_no_status_change():
    ticket = TicketFactory(status=Ticket.Status.ANSWERED)
    ticket_reply_add(ticket=ticket, body="추가 안내", actor=operator_with())
    assert [e[0] for e in _events(ticket)] == ["REPLIED"]


@pytest.mark.parametrize(("body", "code"), [("   ", "empty_reply"), ("가" * (BODY_MAX + 1), "reply_too_long")])
def test_operator_reply_refuses_empty_or_long_text_and_writes_nothing(body, code):
    ticket = TicketFactory()
    with pytest.raises(InvalidState) as err:
        ticket_reply_add(ticket=ticket, body=body, actor=operator_with())
    assert err.value.code == code
    assert not ticket.messages.exists() and not ticket.events.exists()


def test_rolled_back_reply_leaves_no_message_status_or_event():
    ticket = TicketFactory()
    with pytest.raises(RuntimeError), transaction.atomic():
        ticket_reply_add(ticket=ticket, body="답변", actor=operator_with())
        raise RuntimeError("the surrounding change failed")
    ticket.refresh_from_db()
    assert ticket.status == "OPEN"
    assert not ticket.messages.exists() and not TicketEvent.objects.exists()


def test_status_change_records_before_and_after_once():
    ticket = TicketFactory()
    op = operator_with()
    assert ticket_status_change(ticket=ticket, status="CLOSED", actor=op) is True
    assert ticket_status_change(ticket=ticket, status="CLOSED", actor=op) is False
    assert _events(ticket) == [("STATUS_CHANGED", "OPERATOR", op.pk, {"before": "OPEN", "after": "CLOSED"})]


def test_tags_add_records_only_new_names():
    ticket = TicketFactory()
    a, b = TagFactory(name="배송지연"), TagFactory(name="VIP")
    ticket.tags.add(a)
    op = operator_with()
    assert ticket_tags_add(ticket=ticket, tags=[a, b], actor=op) == ["VIP"]
    assert ticket_tags_add(ticket=ticket, tags=[a, b], actor=op) == []
    assert _events(ticket) == [
        ("TAGS_CHANGED", "OPERATOR", op.pk, {"before": ["배송지연"], "after": ["VIP", "배송지연"]})
    ]


def test_edit_records_category_and_tags_without_the_subject_text():
    ticket = TicketFactory(subject="원래 요약")
    tag = TagFactory(name="결제오류")
    op = operator_with()
    changed = ticket_edit(ticket=ticket, category="PAYMENT", subject="새 요약", tags=[tag], actor=op)
    assert changed == ["category", "subject", "tags"]
    assert _events(ticket) == [
        (
            "EDITED",
            "OPERATOR",
            op.pk,
            {"category": {"before": "DELIVERY", "after": "PAYMENT"}, "subject": {"changed": True}},
        ),
        ("TAGS_CHANGED", "OPERATOR", op.pk, {"before": [], "after": ["결제오류"]}),
    ]


# --- one open row per key (review ticket, data request) ---------------------------------------------
def test_a_request_that_loses_the_race_for_the_one_open_row_gets_the_winners_row():
    winner = TicketFactory()
    found = iter([None, winner])  # nothing open at the lookup; the other request's row after the conflict

    def create() -> Ticket:
        raise IntegrityError("ticket_one_open_review")

    assert _open_or_create(lambda: next(found), create) == (winner, False)


def test_a_conflict_with_no_open_row_to_return_is_raised():
    def create() -> Ticket:
        raise IntegrityError("some other constraint")

    with pytest.raises(IntegrityError):
        _open_or_create(lambda: None, create)

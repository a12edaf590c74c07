from __future__ import annotations

import logging
import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.errors import InvalidState
from common.outbox import outbox_enqueue
from orders.models import Customer, Order
from tickets.models import Ticket, TicketMessage

log = logging.getLogger(__name__)

SUBJECT_MAX = 200
BODY_MAX = 4000
# The outbox topic a committed customer message writes: "draft this input". The drafts app handles it.
DRAFT_REQUESTED = "draft.requested"


def parse_category(value: object) -> str:
    """English code or Korean label; anything else is 기타 (a person will re-file it)."""
    if isinstance(value, str):
        text = value.strip()
        for choice in Ticket.Category:
            if text in (choice.value, choice.label):
                return choice.value
    return Ticket.Category.OTHER


def _draft_request(ticket: Ticket, message: TicketMessage) -> None:
    """A durable "draft this input", in the customer message's own transaction: handed to the broker after
    commit, and by the periodic sweep if that never happened (broker down, process died)."""
    outbox_enqueue(
        topic=DRAFT_REQUESTED, key=str(message.pk), payload={"ticket_id": ticket.pk, "message_id": message.pk}
    )


def ticket_message_add(*, ticket: Ticket, body: str, author: AbstractBaseUser | None) -> TicketMessage:
    """A customer follow-up on their ticket: stored, the ticket reopened, a new draft requested."""
    text = body.strip()[:BODY_MAX]
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        message = TicketMessage.objects.create(
            ticket=locked, author_type=TicketMessage.Author.CUSTOMER, author=author, body=text
        )
        if locked.status != Ticket.Status.OPEN:
            locked.status = Ticket.Status.OPEN
        locked.save(update_fields=["status", "updated_at"])
        _draft_request(locked, message)
    log.info("ticket.customer_message ticket_id=%s message_id=%s", locked.number, message.pk)
    return message


def ticket_reply_add(*, ticket: Ticket, body: str, actor: AbstractBaseUser, close: bool = False) -> TicketMessage:
    """An operator's reply, in their own words or a draft's: stored as an operator message with the operator,
    and the ticket moves to 답변완료 (or 종료 with `close`). Callers check the text (the money-claim guard)
    and the operator's permission; a closed ticket takes no reply (the customer opens a new one)."""
    text = body.strip()[:BODY_MAX]
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        if locked.status == Ticket.Status.CLOSED:
            raise InvalidState("종료된 문의에는 답변할 수 없습니다.", code="ticket_closed")
        message = TicketMessage.objects.create(
            ticket=locked, author_type=TicketMessage.Author.OPERATOR, author=actor, body=text
        )
        locked.status = Ticket.Status.CLOSED if close else Ticket.Status.ANSWERED
        locked.save(update_fields=["status", "updated_at"])
    ticket.status = locked.status
    log.info(
        "ticket.operator_reply ticket_id=%s message_id=%s close=%s actor_id=%s",
        locked.number,
        message.pk,
        close,
        actor.pk,
    )
    return message


def ticket_seen_by_customer(*, ticket: Ticket, actor: AbstractBaseUser | None) -> None:
    """The customer opened the thread: the operator replies so far are read. Not an audited change (a read
    receipt), so one UPDATE and no event row."""
    Ticket.objects.filter(pk=ticket.pk).update(customer_seen_at=timezone.now())


def ticket_note_add(*, ticket: Ticket, body: str, actor: AbstractBaseUser | None) -> TicketMessage:
    """A system note on the ticket: operators read it, customers never do."""
    return TicketMessage.objects.create(
        ticket=ticket, author_type=TicketMessage.Author.SYSTEM, author=actor, body=body[:BODY_MAX]
    )


def ticket_create(
    *,
    customer: Customer,
    category: object,
    subject: str,
    body: str,
    source: str,
    author: AbstractBaseUser | None,
    order: Order | None = None,
    chat_conversation_id: uuid.UUID | None = None,
) -> Ticket:
    """Open a ticket whose first message is the customer's words."""
    subject_text = " ".join(subject.split())[:SUBJECT_MAX] or "문의"
    with transaction.atomic():
        ticket = Ticket.objects.create(
            customer=customer,
            category=parse_category(category),
            subject=subject_text,
            source=source,
            order=order,
            chat_conversation_id=chat_conversation_id,
        )
        message = TicketMessage.objects.create(
            ticket=ticket,
            author_type=TicketMessage.Author.CUSTOMER,
            author=author,
            body=body[:BODY_MAX] or subject_text,
        )
        _draft_request(ticket, message)
    log.info("ticket.created ticket_id=%s source=%s category=%s", ticket.number, source, ticket.category)
    return ticket


def open_handoff_ticket(*, chat_conversation_id: uuid.UUID) -> Ticket | None:
    return Ticket.objects.filter(chat_conversation_id=chat_conversation_id).exclude(status=Ticket.Status.CLOSED).first()


def ticket_handoff_get_or_create(
    *,
    customer: Customer,
    chat_conversation_id: uuid.UUID,
    category: object,
    subject: str,
    body: str,
    source: str,
    author: AbstractBaseUser | None,
) -> tuple[Ticket, bool]:
    """The conversation's one open handoff ticket: the existing one (created=False) or a new one.
    The database constraint `ticket_one_open_handoff_per_conversation` settles concurrent requests."""
    existing = open_handoff_ticket(chat_conversation_id=chat_conversation_id)
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            ticket = ticket_create(
                customer=customer,
                category=category,
                subject=subject,
                body=body,
                source=source,
                author=author,
                chat_conversation_id=chat_conversation_id,
            )
    except IntegrityError:
        existing = open_handoff_ticket(chat_conversation_id=chat_conversation_id)
        if existing is None:
            raise
        return existing, False
    return ticket, True

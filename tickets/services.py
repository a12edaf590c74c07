from __future__ import annotations

import logging
import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from common.choices import choice_parse
from common.outbox import outbox_enqueue
from orders.models import Customer, Order
from tickets.models import Ticket, TicketMessage

log = logging.getLogger(__name__)

SUBJECT_MAX = 200
BODY_MAX = 4000  # the one body limit: ticket messages, chat messages and draft replies
# The outbox topic a committed customer message writes: "draft this input". The drafts app handles it.
DRAFT_REQUESTED = "draft.requested"


def parse_category(value: object) -> str:
    """English code or Korean label; anything else is 기타 (a person will re-file it)."""
    return choice_parse(Ticket.Category, value) or Ticket.Category.OTHER


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

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from common import events
from common.actors import Actor
from common.audit import actor_fields
from common.choices import choice_parse
from common.errors import InvalidState, NotFound, PermissionDenied
from common.outbox import outbox_enqueue
from common.redaction import redact
from orders.models import Customer, Order
from tickets import hooks
from tickets.models import Tag, Ticket, TicketEvent, TicketMessage
from tickets.policy import OVERRIDE_REASON_MAX, normalise_reply

log = logging.getLogger(__name__)

SUBJECT_MAX = 200
BODY_MAX = 4000  # the one body limit: ticket messages, chat messages and draft replies
# The first line of the system note that carries a chat handoff's masked transcript (the drafts' prompt reads
# it as the conversation's context; operators read it on the ticket).
HANDOFF_TRANSCRIPT_TITLE = "[채팅 대화 기록]"
# The outbox topic a committed customer message writes: "draft this input". The drafts app handles it.
DRAFT_REQUESTED = "draft.requested"
# Who may answer customers in their own words (the admin reply box, POST /api/ops/tickets/<id>/reply/).
REPLY_PERMISSION = "tickets.reply_ticket"


def parse_category(value: object) -> str:
    """English code or Korean label; anything else is 기타 (a person will re-file it)."""
    return choice_parse(Ticket.Category, value) or Ticket.Category.OTHER


def _draft_request(ticket: Ticket, message: TicketMessage) -> None:
    """A durable "draft this input", in the customer message's own transaction: handed to the broker after
    commit, and by the periodic sweep if that never happened (broker down, process died)."""
    outbox_enqueue(
        topic=DRAFT_REQUESTED, key=str(message.pk), payload={"ticket_id": ticket.pk, "message_id": message.pk}
    )


def _event(ticket: Ticket, type: str, *, actor: Actor, **payload: object) -> TicketEvent:
    return TicketEvent.objects.create(ticket=ticket, type=type, payload=payload, **actor_fields(actor))


def _customer_actor(ticket_customer_id: str, author: AbstractBaseUser | None, source: str) -> Actor:
    """Who wrote a customer-side message: the customer (directly or through the chat agent), or staff
    filing it for them (`Source.STAFF`)."""
    if source == Ticket.Source.STAFF:
        who = author.get_username() if author is not None else "staff"
        return Actor("STAFF", f"{who} → {ticket_customer_id}", author)
    return Actor("CUSTOMER", ticket_customer_id, author)


def ticket_message_add(*, ticket: Ticket, body: str, author: AbstractBaseUser | None) -> TicketMessage:
    """A customer follow-up on their ticket: stored, the ticket reopened, a new draft requested."""
    text = body.strip()[:BODY_MAX]
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        actor = _customer_actor(locked.customer_id, author, "")
        message = TicketMessage.objects.create(
            ticket=locked, author_type=TicketMessage.Author.CUSTOMER, author=author, body=text
        )
        before = locked.status
        if locked.status != Ticket.Status.OPEN:
            locked.status = Ticket.Status.OPEN
        locked.save(update_fields=["status", "updated_at"])
        _event(locked, TicketEvent.Type.MESSAGE_ADDED, actor=actor, message_id=message.pk, author_type="CUSTOMER")
        if before != locked.status:
            _event(locked, TicketEvent.Type.REOPENED, actor=actor, before=before, after=locked.status)
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
        _event(
            ticket,
            TicketEvent.Type.CREATED,
            actor=_customer_actor(customer.customer_id, author, source),
            source=source,
            category=ticket.category,
            status=ticket.status,
            order_id=order.pk if order is not None else None,
            message_id=message.pk,
        )
        _draft_request(ticket, message)
        events.shop_event_emit(
            type=events.TICKET_CREATED,
            key=str(ticket.pk),
            data={
                "ticket_id": ticket.number,
                "customer_id": customer.customer_id,
                "order_id": order.pk if order is not None else None,
                "category": ticket.category,
                "subject": ticket.subject,
                "source": source,
            },
        )
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
    transcript: str = "",
) -> tuple[Ticket, bool]:
    """The conversation's one open handoff ticket: the existing one (created=False) or a new one.
    The database constraint `ticket_one_open_handoff_per_conversation` settles concurrent requests.

    A new ticket carries the conversation so far (`transcript`, masked here with `common.redaction.redact`)
    as a system note in the same transaction, so the draft requested for it already sees the context."""
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
            if transcript.strip():
                ticket_note_add(
                    ticket=ticket,
                    body=f"{HANDOFF_TRANSCRIPT_TITLE} 상담원 연결 전 채팅 (개인정보 가림)\n"
                    + redact(transcript.strip()),
                    actor=None,
                )
    except IntegrityError:
        existing = open_handoff_ticket(chat_conversation_id=chat_conversation_id)
        if existing is None:
            raise
        return existing, False
    return ticket, True


# --- an operator's side -------------------------------------------------------------------------
def _status_set(ticket: Ticket, status: str, *, actor: Actor) -> bool:
    """Set the (locked) ticket's status and record it; False when it already was."""
    if ticket.status == status:
        return False
    before = ticket.status
    ticket.status = status
    ticket.save(update_fields=["status", "updated_at"])
    _event(ticket, TicketEvent.Type.STATUS_CHANGED, actor=actor, before=before, after=status)
    return True


def ticket_reply_add(*, ticket: Ticket, body: str, actor: AbstractBaseUser, close: bool = False) -> TicketMessage:
    """An operator's answer to the customer: stored as an OPERATOR message, the ticket moved to 답변완료
    (or 종료 with `close`), one event per change, all in one transaction. The caller checks what the
    text may say (the money-claim guard) and who may send it; this stores what was sent."""
    text = body.strip()
    if not text:
        raise InvalidState("보낼 답변이 비어 있습니다.", code="empty_reply")
    if len(text) > BODY_MAX:
        raise InvalidState(f"답변은 {BODY_MAX:,}자를 넘을 수 없습니다.", code="reply_too_long")
    who = Actor.operator(actor)
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        message = TicketMessage.objects.create(
            ticket=locked, author_type=TicketMessage.Author.OPERATOR, author=actor, body=text
        )
        _event(locked, TicketEvent.Type.REPLIED, actor=who, message_id=message.pk, close=close)
        _status_set(locked, Ticket.Status.CLOSED if close else Ticket.Status.ANSWERED, actor=who)
    ticket.status = locked.status
    log.info(
        "ticket.replied ticket_id=%s message_id=%s status=%s actor_id=%s",
        locked.number,
        message.pk,
        locked.status,
        actor.pk,
    )
    return message


def ticket_seen_by_customer(*, ticket: Ticket, actor: AbstractBaseUser | None) -> None:
    """The customer opened the thread: the operator replies so far are read. A read receipt, not a change of
    the ticket's state, so one UPDATE and no event row."""
    Ticket.objects.filter(pk=ticket.pk).update(customer_seen_at=timezone.now())


def ticket_note_add(*, ticket: Ticket, body: str, actor: AbstractBaseUser | None) -> TicketMessage:
    """A system note on the ticket: operators read it, customers never do (customer_visible_messages)."""
    return TicketMessage.objects.create(
        ticket=ticket, author_type=TicketMessage.Author.SYSTEM, author=actor, body=body[:BODY_MAX]
    )


def ticket_status_change(*, ticket: Ticket, status: str, actor: AbstractBaseUser) -> bool:
    """An operator moves a ticket to `status` (e.g. 종료). Returns False when it already was."""
    if status not in Ticket.Status.values:
        raise InvalidState(f"알 수 없는 티켓 상태입니다: {status}", code="invalid_status")
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        changed = _status_set(locked, status, actor=Actor.operator(actor))
    ticket.status = locked.status
    if changed:
        log.info("ticket.status_changed ticket_id=%s status=%s actor_id=%s", locked.number, status, actor.pk)
    return changed


def ticket_tags_add(*, ticket: Ticket, tags: list[Tag], actor: AbstractBaseUser) -> list[str]:
    """Add operator-chosen tags; records the names added (none: no event). Returns the names added."""
    if not tags:
        return []
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        before = sorted(locked.tags.values_list("name", flat=True))
        added = sorted({t.name for t in tags} - set(before))
        if added:
            locked.tags.add(*[t for t in tags if t.name in added])
            _event(
                locked,
                TicketEvent.Type.TAGS_CHANGED,
                actor=Actor.operator(actor),
                before=before,
                after=sorted({*before, *added}),
            )
    return added


def ticket_edit(*, ticket: Ticket, category: str, subject: str, tags: list[Tag], actor: AbstractBaseUser) -> list[str]:
    """An operator corrects the filing (category, subject) or the tags in the admin. One event per kind of
    change; returns the names of the fields changed."""
    who = Actor.operator(actor)
    changed: list[str] = []
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        edits = {}
        new_subject = " ".join(subject.split())[:SUBJECT_MAX] or locked.subject
        if category != locked.category:
            edits["category"] = {"before": locked.category, "after": category}
            locked.category = category
        if new_subject != locked.subject:
            # The subject is the customer's words: record that it changed, not the text.
            edits["subject"] = {"changed": True}
            locked.subject = new_subject
        if edits:
            locked.save(update_fields=["category", "subject", "updated_at"])
            _event(locked, TicketEvent.Type.EDITED, actor=who, **edits)
            changed += list(edits)
        before = sorted(locked.tags.values_list("name", flat=True))
        after = sorted({t.name for t in tags})
        if before != after:
            locked.tags.set(tags)
            _event(locked, TicketEvent.Type.TAGS_CHANGED, actor=who, before=before, after=after)
            changed.append("tags")
    return changed


def tags_resolve(names: Iterable[str]) -> list[Tag]:
    """The active tags named (operators choose from the tag set); an unknown name is refused."""
    wanted = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    found = {t.name: t for t in Tag.objects.filter(name__in=wanted, is_active=True)}
    unknown = [n for n in wanted if n not in found]
    if unknown:
        raise InvalidState(f"등록되지 않은 태그입니다: {', '.join(unknown)}", code="unknown_tag")
    return [found[n] for n in wanted]


# --- the operator's own reply ------------------------------------------------------------------
def _require_replier(actor: AbstractBaseUser | None) -> None:
    if actor is None or not actor.is_active or not actor.has_perm(REPLY_PERMISSION):
        raise PermissionDenied("고객 문의에 답변할 권한이 없습니다.")


def _unsupported_claims(text: str, *, customer_id: str, order_id: str | None) -> list[str]:
    """The reply guard's verdict (`tickets.hooks`). No guard registered: nothing is sent (fail closed)."""
    guard = hooks.reply_guard()
    if guard is None:
        raise InvalidState(
            "답변의 환불·취소 약속을 검사할 수 없어 보내지 않았습니다. 관리자에게 알려 주세요.", code="reply_unchecked"
        )
    return guard(text=text, customer_id=customer_id, order_ids=[order_id] if order_id else None)


def ticket_reply_send(
    *,
    ticket_id: int,
    body: str,
    actor: AbstractBaseUser,
    tags: Iterable[str] = (),
    close: bool = False,
    override_reason: str = "",
) -> TicketMessage:
    """An operator answers in their own words: after a draft was rejected, with drafts off, or when a draft
    failed. The text passes the money-claim guard (`tickets.hooks`; InvalidState `reply_blocked`, nothing
    sent, unless `override_reason` is given — then the reason and the operator are kept as a system note).

    The apps above are told in the same transaction (`tickets.hooks.reply_sent_hooks`): drafts marks a live
    draft REJECTED by this operator, so it is not sent later on top of this answer."""
    _require_replier(actor)
    reason = normalise_reply(override_reason or "")
    if len(reason) > OVERRIDE_REASON_MAX:
        raise InvalidState(
            f"예외 발송 사유는 {OVERRIDE_REASON_MAX:,}자를 넘을 수 없습니다.", code="override_reason_too_long"
        )
    text = normalise_reply(body)
    if not text:
        raise InvalidState("보낼 답변이 비어 있습니다.", code="empty_reply")
    if len(text) > BODY_MAX:
        raise InvalidState(f"답변은 {BODY_MAX:,}자를 넘을 수 없습니다.", code="reply_too_long")
    head = Ticket.objects.filter(pk=ticket_id).values("customer_id", "order_id").first()
    if head is None:
        raise NotFound("문의 티켓을 찾을 수 없습니다.")
    # The analyser runs before any lock is taken.
    unsupported = _unsupported_claims(text, customer_id=head["customer_id"], order_id=head["order_id"])
    if unsupported and not reason:
        sentences = " / ".join(f"“{sentence}”" for sentence in unsupported[:3])
        raise InvalidState(
            "이 답변은 보낼 수 없습니다. 고객의 처리 기록에 없는 환불·취소를 약속합니다: "
            f"{sentences}. 문장을 고치거나 예외 발송 사유를 적어 주세요.",
            code="reply_blocked",
        )
    with transaction.atomic():
        ticket = Ticket.objects.select_for_update().get(pk=ticket_id)
        if ticket.status == Ticket.Status.CLOSED:
            raise InvalidState("종료된 문의에는 답변할 수 없습니다.", code="ticket_closed")
        chosen = tags_resolve(tags)
        message = ticket_reply_add(ticket=ticket, body=text, actor=actor, close=close)
        for hook in hooks.reply_sent_hooks():
            hook(ticket=ticket, message=message, actor=actor)
        if unsupported:
            ticket_note_add(
                ticket=ticket,
                body=f"예외 발송: 승인되지 않은 환불·취소 약속 {len(unsupported)}건을 알고 보냈습니다. 사유: {reason}",
                actor=actor,
            )
        ticket_tags_add(ticket=ticket, tags=chosen, actor=actor)
    if unsupported:
        log.warning(
            "ticket.reply_overridden ticket_id=%s claims=%d actor_id=%s", ticket.number, len(unsupported), actor.pk
        )
    log.info("ticket.reply_sent ticket_id=%s close=%s actor_id=%s", ticket.number, close, actor.pk)
    return message

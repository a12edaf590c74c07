from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from common import clock, events
from common.actors import Actor, Person
from common.business_hours import business_add, business_calendar, business_seconds_between
from common.choices import choice_parse
from common.display import person_name
from common.errors import DomainError, InvalidState, NotFound, PermissionDenied
from common.outbox import outbox_enqueue
from common.redaction import redact
from orders.models import Customer, Order
from tickets import hooks, policy
from tickets.models import DataSubjectRequest, OperatorStatus, Tag, Ticket, TicketEvent, TicketMessage, TicketRating
from tickets.notices import REPLY_NOTICE_TOPIC, reply_notice_wanted
from tickets.policy import OVERRIDE_REASON_MAX, normalise_reply
from tickets.selectors import sla_clocks

log = logging.getLogger(__name__)

SUBJECT_MAX = 200
BODY_MAX = 4000  # the one body limit: ticket messages, chat messages and draft replies
# The first line of the system note that carries a chat handoff's masked transcript (the drafts' prompt reads
# it as the conversation's context; operators read it on the ticket).
HANDOFF_TRANSCRIPT_TITLE = "[채팅 대화 기록]"
# The outbox topic a committed customer message writes: "draft this input". The drafts app handles it.
DRAFT_REQUESTED = "draft.requested"
# Who may answer customers in their own words (the admin reply box, POST /api/ops/tickets/<id>/reply/); the
# same permission lets an operator take or release their own tickets and change a ticket's priority.
REPLY_PERMISSION = "tickets.reply_ticket"
# Assigning a ticket to someone else, or taking or releasing a ticket someone else holds.
ASSIGN_PERMISSION = "tickets.assign_ticket"
AUTO_ASSIGN_ROUND_ROBIN = "round_robin"
AUTO_ASSIGN_ACTOR = Actor.system("자동 배정(순번제)")
AUTO_CLOSE_ACTOR = Actor.system("자동 종료(고객 응답 없음)")
# The fields the SLA clocks move (tickets.policy); every service that changes one saves them all.
SLA_FIELDS = [
    "first_response_due_at",
    "first_responded_at",
    "next_response_due_at",
    "resolution_due_at",
    "sla_paused_s",
    "answered_at",
    "closed_at",
    "sla_due_at",
]


def parse_category(value: object) -> str:
    """English code or Korean label; anything else is 기타 (a person will re-file it)."""
    return choice_parse(Ticket.Category, value) or Ticket.Category.OTHER


def _draft_request(ticket: Ticket, message: TicketMessage) -> None:
    """A durable "draft this input", in the customer message's own transaction: handed to the broker after
    commit, and by the periodic sweep if that never happened (broker down, process died)."""
    outbox_enqueue(
        topic=DRAFT_REQUESTED, key=str(message.pk), payload={"ticket_id": ticket.pk, "message_id": message.pk}
    )


def _targets(priority: str) -> policy.Targets:
    return policy.sla_targets(priority, settings.CS_SLA_TARGETS)


def _dues_set(ticket: Ticket) -> None:
    """First-response and resolution due times from the ticket's creation, priority and paused time."""
    ticket.first_response_due_at, ticket.resolution_due_at = policy.due_times(
        created_at=ticket.created_at,
        priority=ticket.priority,
        paused_s=ticket.sla_paused_s,
        targets=_targets(ticket.priority),
        calendar=business_calendar(),
    )


def _clocks_move(ticket: Ticket, status: str, *, at) -> None:
    """The SLA fields of a (locked) ticket entering `status` (possibly the one it has) at `at`. The business time
    since it last started waiting (답변완료: on the customer; 종료) is added to the pause, so the resolution
    clock counts only the time the desk owed an answer; entering 답변완료 or 종료 starts a new wait."""
    waited_since = {Ticket.Status.ANSWERED: ticket.answered_at, Ticket.Status.CLOSED: ticket.closed_at}.get(
        ticket.status
    )
    if waited_since is not None:
        ticket.sla_paused_s += max(0, round(business_seconds_between(waited_since, at, business_calendar())))
        _dues_set(ticket)
    ticket.answered_at = at if status == Ticket.Status.ANSWERED else None
    ticket.closed_at = at if status == Ticket.Status.CLOSED else None
    ticket.status = status
    ticket.sla_due_at = policy.nearest_due(sla_clocks(ticket))


def _customer_actor(customer: Customer, author: Person | None, source: str) -> Actor:
    """Who wrote a customer-side message: the customer (directly or through the chat agent), or staff
    filing it for them (`Source.STAFF`)."""
    if source == Ticket.Source.STAFF:
        return Actor.staff_for(customer, author, "staff")
    return Actor.customer(customer.customer_id, author)


def ticket_message_add(*, ticket: Ticket, body: str, author: Person | None) -> TicketMessage:
    """A customer follow-up on their ticket: stored, the ticket reopened, a new draft requested."""
    text = body.strip()[:BODY_MAX]
    now = clock.now()
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        actor = Actor.customer(locked.customer_id, author)
        message = TicketMessage.objects.create(
            ticket=locked, author_type=TicketMessage.Author.CUSTOMER, author=author, body=text, created_at=now
        )
        before = locked.status
        if locked.first_responded_at is not None and locked.next_response_due_at is None:
            # The next-response clock starts with the first follow-up the desk has not answered yet.
            locked.next_response_due_at = business_add(
                now, _targets(locked.priority).next_response, business_calendar()
            )
        _clocks_move(locked, Ticket.Status.OPEN, at=now)
        locked.save(update_fields=["status", *SLA_FIELDS, "updated_at"])
        TicketEvent.message_added(locked, actor=actor, message_id=message.pk).save()
        if before != locked.status:
            reopened = TicketEvent.Type.REOPENED
            TicketEvent.status_moved(locked, actor=actor, before=before, after=locked.status, type=reopened).save()
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
    author: Person | None,
    order: Order | None = None,
    chat_conversation_id: uuid.UUID | None = None,
    after_refused_money_request: bool = False,
    review_of: str = "",
) -> Ticket:
    """Open a ticket whose first message is the customer's words. Its priority comes from the rules
    (tickets.policy.initial_priority: `after_refused_money_request` is a chat handoff after the agent refused a
    refund or cancellation), its SLA clocks start now, and with CS_AUTO_ASSIGN=round_robin it goes to the next
    available operator."""
    subject_text = " ".join(subject.split())[:SUBJECT_MAX] or "문의"
    now = clock.now()
    category_code = parse_category(category)
    priority, rule = policy.initial_priority(
        category=category_code, after_refused_money_request=after_refused_money_request
    )
    with transaction.atomic():
        ticket = Ticket(
            customer=customer,
            category=category_code,
            subject=subject_text,
            source=source,
            order=order,
            chat_conversation_id=chat_conversation_id,
            review_of=review_of,
            priority=priority,
            created_at=now,
        )
        _dues_set(ticket)
        ticket.sla_due_at = policy.nearest_due(sla_clocks(ticket))
        ticket.save(force_insert=True)
        message = TicketMessage.objects.create(
            ticket=ticket,
            author_type=TicketMessage.Author.CUSTOMER,
            author=author,
            body=body[:BODY_MAX] or subject_text,
            created_at=now,
        )
        TicketEvent.created(
            ticket,
            actor=_customer_actor(customer, author, source),
            source=source,
            category=ticket.category,
            status=ticket.status,
            order_id=order.pk if order is not None else None,
            message_id=message.pk,
            priority=priority,
            rule=rule,
        ).save()
        _auto_assign(ticket, at=now)
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


_Row = TypeVar("_Row", Ticket, DataSubjectRequest)


def _open_or_create(find: Callable[[], _Row | None], create: Callable[[], _Row]) -> tuple[_Row, bool]:
    """The one open row `find` returns (created=False), or the row `create` writes in its own transaction
    (created=True). A unique constraint on the open rows (`ticket_one_open_review`, `dsr_one_open_per_kind`)
    settles two requests at once: the one that loses gets the winner's row, as `get_or_create` does."""
    existing = find()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return create(), True
    except IntegrityError:
        existing = find()
        if existing is None:
            raise
        return existing, False


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
    author: Person | None,
    transcript: str = "",
    after_refused_money_request: bool = False,
    order: Order | None = None,
) -> tuple[Ticket, bool]:
    """The conversation's one open handoff ticket: the existing one (created=False) or a new one, about
    `order` when the customer named one.
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
                after_refused_money_request=after_refused_money_request,
                order=order,
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
def _status_set(
    ticket: Ticket,
    status: str,
    *,
    actor: Actor,
    type: str = TicketEvent.Type.STATUS_CHANGED,
    at: datetime | None = None,
    **payload: object,
) -> bool:
    """Set the (locked) ticket's status, move its SLA clocks and record it; False when it already was."""
    if ticket.status == status:
        return False
    before = ticket.status
    _clocks_move(ticket, status, at=at or clock.now())
    ticket.save(update_fields=["status", *SLA_FIELDS, "updated_at"])
    TicketEvent.status_moved(ticket, actor=actor, before=before, after=status, type=type, **payload).save()
    return True


# --- two people on one ticket -------------------------------------------------------------------------------
# What counts as "the ticket changed while you were writing": a customer's words or a colleague's answer (a
# system note written with an answer is not news to the writer).
CONVERSATION_AUTHORS = (TicketMessage.Author.CUSTOMER, TicketMessage.Author.OPERATOR)


def _when_words(moment: datetime) -> str:
    local = moment.astimezone(clock.SEOUL)
    if local.date() == clock.now().astimezone(clock.SEOUL).date():
        return f"{local:%H:%M}"
    return f"{local.month}월 {local.day}일 {local:%H:%M}"


def _message_data(message: TicketMessage) -> dict:
    author = message.author if message.author_type == TicketMessage.Author.OPERATOR else None
    return {
        "message_id": message.pk,
        "author_type": message.author_type,
        "author_display": message.get_author_type_display(),
        "author": author.get_username() if author is not None else None,
        "author_name": person_name(author) if author is not None else message.get_author_type_display(),
        "body": message.body,
        "created_at": message.created_at.astimezone(clock.SEOUL).isoformat(),
    }


def ticket_conflict_check(*, ticket_id: int, last_seen_message_id: int | None, body: str) -> None:
    """Call with the ticket row locked, before storing an answer written while looking at the conversation up to
    `last_seen_message_id`. A newer customer message or operator answer means the writer has not seen it: nothing
    is stored, and the 409 `ticket_changed` carries the newer messages with their authors and the writer's own
    text, so it is never lost. Says who answered in plain words ("김상담님이 14:02에 먼저 답변했습니다")."""
    if last_seen_message_id is None:
        return
    newer = list(
        TicketMessage.objects.filter(
            ticket_id=ticket_id, pk__gt=last_seen_message_id, author_type__in=CONVERSATION_AUTHORS
        )
        .select_related("author")
        .order_by("id")
    )
    if not newer:
        return
    answers = [m for m in newer if m.author_type == TicketMessage.Author.OPERATOR]
    if answers:
        first = answers[0]
        who = person_name(first.author) if first.author is not None else "다른 상담원"
        news = f"{who}님이 {_when_words(first.created_at)}에 먼저 답변했습니다."
    else:
        news = f"고객이 {_when_words(newer[-1].created_at)}에 새 메시지를 보냈습니다."
    raise InvalidState(
        f"{news} 작성하신 내용은 아래에 그대로 있습니다. 새 내용을 확인한 뒤 다시 보내 주세요.",
        code="ticket_changed",
        data={"messages": [_message_data(m) for m in newer], "body": body},
    )


def ticket_reply_add(
    *,
    ticket: Ticket,
    body: str,
    actor: Person,
    close: bool = False,
    last_seen_message_id: int | None = None,
) -> TicketMessage:
    """An operator's answer to the customer: stored as an OPERATOR message, the ticket moved to 답변완료
    (or 종료 with `close`), one event per change, all in one transaction. The caller checks what the
    text may say (the money-claim guard) and who may send it; this stores what was sent — unless the
    conversation moved on past `last_seen_message_id` (409 ticket_changed, ticket_conflict_check)."""
    text = body.strip()
    reply_text_check(text)
    who = Actor.operator(actor)
    now = clock.now()
    with transaction.atomic():
        locked = Ticket.objects.select_for_update(of=("self",)).select_related("assignee").get(pk=ticket.pk)
        ticket_conflict_check(ticket_id=locked.pk, last_seen_message_id=last_seen_message_id, body=text)
        message = TicketMessage.objects.create(
            ticket=locked, author_type=TicketMessage.Author.OPERATOR, author=actor, body=text, created_at=now
        )
        if locked.first_responded_at is None:
            locked.first_responded_at = now
        locked.next_response_due_at = None
        # Anyone who may answer does; whether the assignee did is recorded.
        TicketEvent.replied(
            locked,
            actor=who,
            message_id=message.pk,
            close=close,
            assignee=locked.assignee.get_username() if locked.assignee_id is not None else None,
            by_assignee=locked.assignee_id == actor.pk,
        ).save()
        target = Ticket.Status.CLOSED if close else Ticket.Status.ANSWERED
        if not _status_set(locked, target, actor=who, at=now):
            _clocks_move(locked, target, at=now)  # a second answer: the wait on the customer starts again
            locked.save(update_fields=[*SLA_FIELDS, "updated_at"])
        # Every path of an answer comes through here (the reply box, the staff API, an applied draft).
        for hook in hooks.reply_stored_hooks():
            hook(ticket=locked, message=message, actor=actor)
        _reply_tell_customer(locked, message)
    ticket.status = locked.status
    log.info(
        "ticket.replied ticket_id=%s message_id=%s status=%s actor_id=%s",
        locked.number,
        message.pk,
        locked.status,
        actor.pk,
    )
    return message


def _reply_tell_customer(ticket: Ticket, message: TicketMessage) -> None:
    """In the answer's transaction: the shop's `ticket.replied` event (it notifies its customer its own way) and,
    for a customer of the desk's own with an e-mail address and notices on, the reply e-mail's outbox row. The
    event goes out whatever the switch says (the shop keeps its records), with `notify` carrying the customer's
    choice. The excerpt is masked (an operator may quote an address or a phone number)."""
    customer = Customer.objects.filter(pk=ticket.customer_id).values("email", "email_notices").get()
    events.shop_event_emit(
        type=events.TICKET_REPLIED,
        key=str(message.pk),
        data={
            "ticket_id": ticket.number,
            "customer_id": ticket.customer_id,
            "order_id": ticket.order_id,
            "excerpt": policy.reply_excerpt(redact(message.body)),
            "thread_url": policy.thread_url(settings.CS_PUBLIC_BASE_URL, ticket.number),
            "notify": customer["email_notices"],
        },
    )
    if reply_notice_wanted(customer_id=ticket.customer_id, **customer):
        outbox_enqueue(
            topic=REPLY_NOTICE_TOPIC, key=str(message.pk), payload={"ticket_id": ticket.pk, "message_id": message.pk}
        )


def ticket_seen_by_customer(*, ticket: Ticket, actor: Person | None) -> None:
    """The customer opened the thread: the operator replies so far are read. A read receipt, not a change of
    the ticket's state, so one UPDATE and no event row."""
    Ticket.objects.filter(pk=ticket.pk).update(customer_seen_at=clock.now())


def tickets_seen_by_customer(*, customer: Customer, ticket_ids: Iterable[int]) -> int:
    """The customer read these tickets' answers elsewhere (their chat conversation): the same read receipt as
    opening each thread. Only the customer's own tickets; returns how many."""
    return Ticket.objects.filter(pk__in=list(ticket_ids), customer=customer).update(customer_seen_at=clock.now())


def ticket_note_add(*, ticket: Ticket, body: str, actor: Person | None) -> TicketMessage:
    """A system note on the ticket: operators read it, customers never do (customer_visible_messages)."""
    return TicketMessage.objects.create(
        ticket=ticket,
        author_type=TicketMessage.Author.SYSTEM,
        author=actor,
        body=body[:BODY_MAX],
        created_at=clock.now(),
    )


def ticket_status_change(*, ticket: Ticket, status: str, actor: Person) -> bool:
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


def ticket_tags_add(*, ticket: Ticket, tags: list[Tag], actor: Person) -> list[str]:
    """Add operator-chosen tags; records the names added (none: no event). Returns the names added."""
    if not tags:
        return []
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        before = sorted(locked.tags.values_list("name", flat=True))
        added = sorted({t.name for t in tags} - set(before))
        if added:
            locked.tags.add(*[t for t in tags if t.name in added])
            after = sorted({*before, *added})
            TicketEvent.tags_changed(locked, actor=Actor.operator(actor), before=before, after=after).save()
    return added


def ticket_edit(*, ticket: Ticket, category: str, subject: str, tags: list[Tag], actor: Person) -> list[str]:
    """An operator corrects the filing (category, subject) or the tags in the admin. One event per kind of
    change; returns the names of the fields changed."""
    who = Actor.operator(actor)
    changed: list[str] = []
    with transaction.atomic():
        locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
        new_subject = " ".join(subject.split())[:SUBJECT_MAX] or locked.subject
        new_category = (locked.category, category) if category != locked.category else None
        if new_category is not None:
            changed.append("category")
            locked.category = category
        if new_subject != locked.subject:
            changed.append("subject")
            locked.subject = new_subject
        if changed:
            locked.save(update_fields=["category", "subject", "updated_at"])
            edited = TicketEvent.edited(locked, actor=who, category=new_category, subject="subject" in changed)
            edited.save()
        before = sorted(locked.tags.values_list("name", flat=True))
        after = sorted({t.name for t in tags})
        if before != after:
            locked.tags.set(tags)
            TicketEvent.tags_changed(locked, actor=who, before=before, after=after).save()
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
def reply_text_check(text: str) -> None:
    """What every operator answer must be, however it is sent (the reply box, the staff API, an applied draft):
    not empty and within the body limit. `text` is already normalised."""
    if not text:
        raise InvalidState("보낼 답변이 비어 있습니다.", code="empty_reply")
    if len(text) > BODY_MAX:
        raise InvalidState(f"답변은 {BODY_MAX:,}자를 넘을 수 없습니다.", code="reply_too_long")


def override_reason_check(reason: str) -> None:
    """Why an operator sends a held answer anyway (an own reply or a draft) fits the limit."""
    if len(reason) > OVERRIDE_REASON_MAX:
        raise InvalidState(
            f"예외 발송 사유는 {OVERRIDE_REASON_MAX:,}자를 넘을 수 없습니다.", code="override_reason_too_long"
        )


def _require_replier(actor: Person | None) -> None:
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
    actor: Person,
    tags: Iterable[str] = (),
    close: bool = False,
    override_reason: str = "",
    last_seen_message_id: int | None = None,
) -> TicketMessage:
    """An operator answers in their own words: after a draft was rejected, with drafts off, or when a draft
    failed. With `last_seen_message_id` (the newest message on the writer's screen) a newer customer message or
    colleague's answer stops it: 409 `ticket_changed` with those messages and the text (ticket_conflict_check).
    The text passes the money-claim guard (`tickets.hooks`; InvalidState `reply_blocked`, nothing
    sent, unless `override_reason` is given — then the reason and the operator are kept as a system note).

    The apps above are told in the same transaction (`tickets.hooks.reply_sent_hooks`): drafts marks a live
    draft REJECTED by this operator, so it is not sent later on top of this answer."""
    _require_replier(actor)
    reason = normalise_reply(override_reason or "")
    override_reason_check(reason)
    text = normalise_reply(body)
    reply_text_check(text)
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
        ticket_conflict_check(ticket_id=ticket.pk, last_seen_message_id=last_seen_message_id, body=text)
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


# --- working as a team: assignment, availability, priority, auto-close ---------------------------------------
def _name(user: Person | None) -> str | None:
    return user.get_username() if user is not None else None


def _handles_tickets(user: Person | None) -> bool:
    return user is not None and user.is_active and user.is_staff and user.has_perm(REPLY_PERMISSION)


def ticket_assign(*, ticket_id: int, assignee: Person | None, actor: Person) -> Ticket:
    """Give the ticket to `assignee` (None: nobody). Whoever may answer tickets takes an unassigned ticket or
    releases their own; giving it to someone else, or taking or releasing someone else's, needs
    tickets.assign_ticket. The assignee must be someone who may answer tickets. An ASSIGNED event records who
    and to whom; assigning the current assignee again changes nothing and records nothing."""
    if not _handles_tickets(actor):
        raise PermissionDenied("문의를 맡거나 놓을 권한이 없습니다.")
    if assignee is not None and not _handles_tickets(assignee):
        raise InvalidState(
            f"{assignee.get_username()}님은 문의에 답변할 수 있는 상담원이 아니라 배정할 수 없습니다.",
            code="assignee_invalid",
        )
    with transaction.atomic():
        ticket = Ticket.objects.select_for_update(of=("self",)).select_related("assignee").get(pk=ticket_id)
        before = ticket.assignee
        if (before.pk if before else None) == (assignee.pk if assignee else None):
            return ticket
        own = (assignee is None or assignee.pk == actor.pk) and (before is None or before.pk == actor.pk)
        if not own and not actor.has_perm(ASSIGN_PERMISSION):
            raise PermissionDenied("다른 상담원에게 배정하거나 다른 상담원의 문의를 가져오려면 배정 권한이 필요합니다.")
        ticket.assignee = assignee
        ticket.save(update_fields=["assignee", "updated_at"])
        TicketEvent.assigned(ticket, actor=Actor.operator(actor), before=_name(before), after=_name(assignee)).save()
    log.info(
        "ticket.assigned ticket_id=%s assignee_id=%s actor_id=%s",
        ticket.number,
        assignee.pk if assignee else None,
        actor.pk,
    )
    return ticket


def _auto_assign(ticket: Ticket, *, at) -> None:
    """CS_AUTO_ASSIGN=round_robin: the new ticket goes to the available operator who got one least recently.
    The operators' rows are locked, so two tickets created at once go to two operators."""
    if settings.CS_AUTO_ASSIGN != AUTO_ASSIGN_ROUND_ROBIN:
        return
    candidates = (
        OperatorStatus.objects.select_for_update(of=("self",))
        .select_related("user")
        .filter(available=True, user__is_active=True, user__is_staff=True)
        .order_by(F("last_assigned_at").asc(nulls_first=True), "user_id")
    )
    chosen = next((row for row in candidates if _handles_tickets(row.user)), None)
    if chosen is None:
        return
    chosen.last_assigned_at = at
    chosen.save(update_fields=["last_assigned_at", "updated_at"])
    ticket.assignee = chosen.user
    ticket.save(update_fields=["assignee", "updated_at"])
    TicketEvent.assigned(
        ticket, actor=AUTO_ASSIGN_ACTOR, before=None, after=chosen.user.get_username(), rule=AUTO_ASSIGN_ROUND_ROBIN
    ).save()


def operator_availability_set(*, available: bool, actor: Person) -> OperatorStatus:
    """The operator's own toggle (admin header): available operators get new tickets by round robin."""
    if not _handles_tickets(actor):
        raise PermissionDenied("문의를 맡을 수 있는 상담원만 상담 가능 상태를 바꿀 수 있습니다.")
    with transaction.atomic():
        status, _ = OperatorStatus.objects.select_for_update().get_or_create(user=actor)
        if status.available != available:
            status.available = available
            status.save(update_fields=["available", "updated_at"])
            log.info("operator.availability actor_id=%s available=%s", actor.pk, available)
    return status


def ticket_priority_change(*, ticket_id: int, priority: str, actor: Person) -> bool:
    """An operator sets the priority; the due times are counted again for it (from the ticket's creation and
    the latest customer follow-up). A PRIORITY_CHANGED event records it. False when it already was."""
    if not _handles_tickets(actor):
        raise PermissionDenied("우선순위를 바꿀 권한이 없습니다.")
    if priority not in Ticket.Priority.values:
        raise InvalidState(f"알 수 없는 우선순위입니다: {priority}", code="invalid_priority")
    with transaction.atomic():
        ticket = Ticket.objects.select_for_update().get(pk=ticket_id)
        if ticket.priority == priority:
            return False
        before = ticket.priority
        ticket.priority = priority
        _dues_set(ticket)
        if ticket.next_response_due_at is not None:
            asked = (
                ticket.messages.filter(author_type=TicketMessage.Author.CUSTOMER)
                .order_by("-id")
                .values_list("created_at", flat=True)
                .first()
            )
            ticket.next_response_due_at = business_add(
                asked or clock.now(), _targets(priority).next_response, business_calendar()
            )
        ticket.sla_due_at = policy.nearest_due(sla_clocks(ticket))
        ticket.save(update_fields=["priority", *SLA_FIELDS, "updated_at"])
        TicketEvent.priority_changed(ticket, actor=Actor.operator(actor), before=before, after=priority).save()
    log.info("ticket.priority_changed ticket_id=%s priority=%s actor_id=%s", ticket.number, priority, actor.pk)
    return True


def ticket_clocks_recount(*, ticket_id: int) -> None:
    """Count a ticket's first-response and resolution due times again from its creation, for tickets whose
    creation time was set afterwards (the demo seeding places its inquiries at their story times). Derived values
    only, no decision: no event."""
    with transaction.atomic():
        ticket = Ticket.objects.select_for_update().get(pk=ticket_id)
        _dues_set(ticket)
        ticket.sla_due_at = policy.nearest_due(sla_clocks(ticket))
        ticket.save(update_fields=SLA_FIELDS)


def tickets_auto_close() -> int:
    """The sweep's part: answered tickets (waiting on the customer) with no customer reply for
    CS_AUTO_CLOSE_DAYS days close by themselves, one short transaction each, re-checked under the row lock
    (a follow-up that arrived meanwhile reopened it). An AUTO_CLOSED event by the system records each."""
    now = clock.now()
    days = float(settings.CS_AUTO_CLOSE_DAYS)
    cutoff = now - timedelta(days=days)
    closed = 0
    for pk in Ticket.objects.filter(status=Ticket.Status.ANSWERED, answered_at__lte=cutoff).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            ticket = Ticket.objects.select_for_update().get(pk=pk)
            if not policy.auto_close_due(
                status=ticket.status, answered_at=ticket.answered_at, now=now, after_days=days
            ):
                continue
            closed += _status_set(
                ticket, Ticket.Status.CLOSED, actor=AUTO_CLOSE_ACTOR, type=TicketEvent.Type.AUTO_CLOSED, days=days
            )
        log.info("ticket.auto_closed ticket_id=%s days=%s", ticket.number, days)
    return closed


# --- the customer's rating (CSAT) -------------------------------------------------------------------------------
def ticket_rate(*, ticket: Ticket, score: int, comment: str, actor: Actor) -> TicketRating:
    """The customer rates their answered or closed ticket, once. Refused: a score outside 1–5 (invalid_score),
    a ticket the desk still owes an answer (409 not_answered), a second rating (409 already_rated — the
    one-to-one row settles two at once). A low score reopens nothing; the team reads it in the metrics."""
    if isinstance(score, bool) or not isinstance(score, int) or not policy.CSAT_MIN <= score <= policy.CSAT_MAX:
        raise DomainError("점수는 1부터 5 사이의 정수여야 합니다.", code="invalid_score")
    text = " ".join((comment or "").split())
    if len(text) > policy.CSAT_COMMENT_MAX:
        raise DomainError(f"의견은 {policy.CSAT_COMMENT_MAX}자 이내로 적어 주세요.", code="comment_too_long")
    already = InvalidState("이미 평가한 문의입니다.", code="already_rated")
    try:
        with transaction.atomic():
            locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
            if TicketRating.objects.filter(ticket=locked).exists():
                raise already
            if not policy.can_rate(status=locked.status, rated=False):
                raise InvalidState("상담원이 답변한 뒤에 평가할 수 있습니다.", code="not_answered")
            rating = TicketRating.objects.create(
                ticket=locked, score=score, comment=text, category=locked.category, created_at=clock.now()
            )
            TicketEvent.rated(locked, actor=actor, score=score, low=policy.csat_low(score)).save()
    except IntegrityError:
        raise already from None
    log.info("ticket.rated ticket_id=%s score=%d", locked.number, score)
    return rating


# --- a customer's requests about their own data --------------------------------------------------------------


def data_request_open(
    *, customer: Customer, kind: str, source: str, actor: Actor, chat_conversation_id: uuid.UUID | None = None
) -> tuple[DataSubjectRequest, bool]:
    """Open a request of `kind` for the customer, due by the law's 10 days on the desk's calendar. Asking again
    while one of that kind is open returns it (created=False)."""
    if kind not in DataSubjectRequest.Kind.values:
        raise InvalidState(f"알 수 없는 요청 종류입니다: {kind}", code="invalid_kind")
    now = clock.now()
    open_requests = DataSubjectRequest.objects.filter(
        customer=customer, kind=kind, status=DataSubjectRequest.Status.OPEN
    )
    request, created = _open_or_create(
        open_requests.first,
        lambda: DataSubjectRequest.objects.create(
            customer=customer,
            kind=kind,
            source=source,
            chat_conversation_id=chat_conversation_id,
            due_at=policy.data_request_due(now, business_calendar()),
            created_at=now,
        ),
    )
    if created:
        log.info("data_request.opened request_id=%s kind=%s actor=%s", request.number, kind, actor.type)
    return request, created


def data_request_verify(*, request: DataSubjectRequest, actor: Person) -> bool:
    """A person has checked who asked (제38조: the request's identity). Returns False when already verified."""
    with transaction.atomic():
        locked = DataSubjectRequest.objects.select_for_update().get(pk=request.pk)
        if locked.identity_verified:
            return False
        locked.identity_verified, locked.verified_by = True, actor
        locked.save(update_fields=["identity_verified", "verified_by"])
    log.info("data_request.verified request_id=%s actor_id=%s", locked.number, actor.pk)
    return True


def data_request_run(*, request: DataSubjectRequest, actor: Person) -> DataSubjectRequest:
    """Carry out a verified request: the export or the erasure its kind's runner does (tickets.hooks), or, for a
    kind a person carries out (정정, 처리정지), record that they did. Refused before the identity is verified."""
    with transaction.atomic():
        locked = DataSubjectRequest.objects.select_for_update().get(pk=request.pk)
        if locked.status != DataSubjectRequest.Status.OPEN:
            return locked
        if not locked.identity_verified:
            raise InvalidState("본인 확인 후에 처리할 수 있습니다.", code="identity_unverified")
        runner = hooks.data_request_runner(locked.kind)
        label = person_name(actor)
        locked.result = runner(customer_id=locked.customer_id, actor_label=label) if runner else {"by": label}
        locked.status, locked.done_at = DataSubjectRequest.Status.DONE, clock.now()
        locked.save(update_fields=["result", "status", "done_at"])
    log.info("data_request.done request_id=%s kind=%s actor_id=%s", locked.number, locked.kind, actor.pk)
    return locked


def review_ticket_open(
    *, customer: Customer, record_number: str, order: Order | None, body: str, author: Person | None
) -> tuple[Ticket, bool]:
    """A person is asked to review what the agent decided by itself (record `record_number`): one open review
    ticket per record, linked by its number; asking again returns the open one (created=False)."""
    open_review = Ticket.objects.filter(review_of=record_number).exclude(status=Ticket.Status.CLOSED)
    return _open_or_create(
        open_review.first,
        lambda: ticket_create(
            customer=customer,
            category=Ticket.Category.AUTO_REVIEW,
            subject=f"자동 처리 재검토 요청 ({record_number})",
            body=body or f"{record_number} 처리를 사람이 다시 검토해 주세요.",
            source=Ticket.Source.AGENT,
            author=author,
            order=order,
            review_of=record_number,
        ),
    )

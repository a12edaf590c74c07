"""One customer chat turn. The customer's words are committed before any model call; a model
failure ends in an apology and a ticket that carries the message, so nothing is lost."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.db import transaction

from actions.claims import Claim
from actions.models import ActionRecord
from actions.selectors import money_claims_unsupported
from chat import policy, prompts
from chat.agent import AgentOutcome, run_agent
from chat.models import ChatMessage, Conversation, ToolCall
from chat.selectors import conversation_transcript
from chat.tools import ToolResult, make_action_tools
from common.actors import Actor
from common.budget import model_budget_charge
from common.business_hours import after_hours_notice, business_calendar
from common.clock import now
from common.display import won
from common.errors import DomainError, NotFound, RateLimited
from common.outage import OUTAGE_ERRORS
from llm.errors import LLMError
from orders.models import Customer, Order
from tickets.models import Ticket, TicketMessage
from tickets.services import (
    BODY_MAX,
    ticket_handoff_get_or_create,
    ticket_message_add,
    tickets_seen_by_customer,
)

log = logging.getLogger(__name__)

MESSAGE_MAX_CHARS = BODY_MAX  # one limit for what a person writes: a chat message can become a ticket's
HISTORY_TURNS = 20
AGENT_ROLES = (ChatMessage.Role.CUSTOMER, ChatMessage.Role.ASSISTANT)


@dataclass(frozen=True)
class TurnResult:
    conversation: Conversation
    customer_message: ChatMessage
    reply: ChatMessage


def validate_message(text: object) -> str:
    if not isinstance(text, str):
        raise DomainError("메시지는 문자열이어야 합니다.", code="invalid_message")
    text = text.strip()
    if not text:
        raise DomainError("메시지가 비어 있습니다.", code="invalid_message")
    if len(text) > MESSAGE_MAX_CHARS:
        raise DomainError(f"메시지는 {MESSAGE_MAX_CHARS:,}자 이내로 보내 주세요.", code="invalid_message")
    return text


def conversation_get(*, customer: Customer, conversation_id: uuid.UUID | str) -> Conversation:
    """The customer's own conversation; anyone else's is not found."""
    conversation = Conversation.objects.filter(pk=conversation_id, customer=customer).first()
    if conversation is None:
        raise NotFound("대화를 찾을 수 없습니다.")
    return conversation


def _charge_next_call(customer: Customer):
    """The agent's `before_call`: the turn's first model call was charged up front; each further round
    is charged before it runs, and an exhausted budget ends the turn with what the tools did so far."""

    def before_call(round_index: int) -> bool:
        if round_index == 0:
            return True
        try:
            model_budget_charge(customer_id=customer.pk)
        except RateLimited:
            return False
        return True

    return before_call


def chat_turn(*, customer: Customer, text: object, conversation_id: uuid.UUID | str | None = None) -> TurnResult:
    text = validate_message(text)
    # 0. The customer's model-call budget: over it, the turn is refused (429) before anything is stored.
    model_budget_charge(customer_id=customer.pk)
    # 1. Store the customer's words first, in their own transaction.
    with transaction.atomic():
        if conversation_id:
            conversation = conversation_get(customer=customer, conversation_id=conversation_id)
        else:
            conversation = Conversation.objects.create(customer=customer)
        # The model reads the customer's dialogue with the agent only: an operator's answer or a system line is
        # not the agent's own word (and a "승인" line must not read as a promise the agent made).
        earlier = list(
            conversation.messages.filter(role__in=AGENT_ROLES)
            .order_by("-id")
            .values_list("role", "content")[: HISTORY_TURNS * 2]
        )[::-1]
        customer_message = ChatMessage.objects.create(
            conversation=conversation, role=ChatMessage.Role.CUSTOMER, content=text
        )
    # 2.-3. From here on the customer's words are stored: an outage (database, Redis, broker) must not hide
    # the conversation from the customer. They get its id and a plain "received" instead of an error.
    try:
        return _answer(conversation, customer_message, customer, text, earlier)
    except OUTAGE_ERRORS as exc:
        return _reply_not_stored(conversation, customer_message, exc)


def _answer(
    conversation: Conversation, customer_message: ChatMessage, customer: Customer, text: str, earlier: list
) -> TurnResult:
    # 2. The model, outside any transaction: tools commit their own work as they go.
    registry = make_action_tools(
        customer,
        conversation_id=conversation.pk,
        transcript=lambda: conversation_transcript(conversation_id=conversation.pk),
    )
    try:
        outcome = run_agent(
            registry=registry,
            messages=prompts.build_messages(history=earlier, current=text),
            before_call=_charge_next_call(customer),
        )
    except LLMError as exc:
        return _model_failed(conversation, customer_message, customer, exc)
    # 3. No reply says money moved unless the records say so; then the reply and what the tools did.
    content = outcome.reply
    result_outcome = ChatMessage.Outcome.BOUNDED if outcome.bounded else ChatMessage.Outcome.OK
    blocked = _unsupported_claims(customer, outcome)
    if blocked:
        content = prompts.claim_safe_reply([c.result for c in outcome.calls])
        result_outcome = ChatMessage.Outcome.CLAIM_BLOCKED
    content = _with_after_hours_notice(content, [c.result.get("after_hours_notice") for c in outcome.calls])
    content = _with_notices(content, [c.result.get(key) for c in outcome.calls for key in CODE_NOTICE_KEYS])
    results = [ToolResult.from_call(c.tool, c.result).as_dict() for c in outcome.calls]
    try:
        with transaction.atomic():
            reply = ChatMessage.objects.create(
                conversation=conversation,
                role=ChatMessage.Role.ASSISTANT,
                content=content,
                tool_results=results,
                outcome=result_outcome,
                model=outcome.model,
            )
            _record_calls(reply, outcome, customer)
            conversation.save(update_fields=["updated_at"])
    except OUTAGE_ERRORS as exc:  # what the tools did is committed: show it with the "received" answer
        return _reply_not_stored(conversation, customer_message, exc, tool_results=results)
    if blocked:
        log.warning(
            "chat.claim_blocked conversation_id=%s customer_id=%s message_id=%s claims=%d past=%d tool_calls=%d",
            conversation.pk,
            customer.pk,
            reply.pk,
            len(blocked),
            sum(1 for c in blocked if c.past),
            len(outcome.calls),
        )
    log.info(
        "chat.turn conversation_id=%s customer_id=%s tool_calls=%d bounded=%s model=%s",
        conversation.pk,
        customer.pk,
        len(outcome.calls),
        outcome.bounded,
        outcome.model,
    )
    return TurnResult(conversation, customer_message, reply)


def _with_after_hours_notice(content: str, notices: list[str | None]) -> str:
    """A person was asked for outside business hours: the reply ends with the code-built sentence saying when
    one will answer, whatever the model wrote (it is not trusted to say the time)."""
    notice = next((n for n in notices if n), None)
    if not notice or notice in content:
        return content
    return f"{content}\n\n{notice}" if content else notice


# Sentences a tool result carries for the customer that the reply must say as written, whatever the model wrote:
# that a decision was automated and a person reviews it on request (제37조의2), a data request's due date.
CODE_NOTICE_KEYS = ("automated_decision_notice", "data_request_notice")


def _with_notices(content: str, notices: list[str | None]) -> str:
    for notice in dict.fromkeys(n for n in notices if n):
        if notice not in content:
            content = f"{content}\n\n{notice}" if content else notice
    return content


def _unsupported_claims(customer: Customer, outcome: AgentOutcome) -> list[Claim]:
    """The reply's money claims that neither this turn's tools nor the customer's records make true. The
    orders the tools touched are the claim's context: a refund approved on another order does not count."""
    order_ids = [order_id for c in outcome.calls for order_id in _result_order_ids(c.result)]
    return money_claims_unsupported(outcome.reply, customer_id=customer.pk, order_ids=order_ids or None)


def _result_order_ids(result: dict) -> list[str]:
    """The orders a tool result is about: its own, and those of the requests or orders it lists."""
    ids = [result.get("order_id")]
    for key in ("actions", "orders"):
        items = result.get(key)
        if isinstance(items, list):
            ids += [item.get("order_id") for item in items if isinstance(item, dict)]
    return [str(i) for i in ids if i]


def _reply_not_stored(
    conversation: Conversation, customer_message: ChatMessage, exc: Exception, *, tool_results: list | None = None
) -> TurnResult:
    """The customer's message is committed but the turn could not finish (the reply could not be written).
    The answer carries the conversation id and says plainly that the message was received; the reply
    itself is not stored (it is not a message anyone can see again)."""
    log.warning(
        "chat.reply_not_stored conversation_id=%s message_id=%s error_class=%s",
        conversation.pk,
        customer_message.pk,
        type(exc).__name__,
    )
    reply = ChatMessage(
        conversation=conversation,
        role=ChatMessage.Role.ASSISTANT,
        content=prompts.RECEIVED_NOT_ANSWERED,
        tool_results=tool_results or [],
    )
    return TurnResult(conversation, customer_message, reply)


def _record_calls(reply: ChatMessage, outcome: AgentOutcome, customer: Customer) -> None:
    """One row per executed call. `order_id` is the order the call was about as the registry answered it:
    every result about an order carries it (done, refused, or not found — an unknown id too). The reason is
    stored as `chat.policy.tool_reason_stored` keeps it: masked, and without another customer's order number."""
    named = {policy.order_id_normalized(c.result.get("order_id")) for c in outcome.calls} - {""}
    for c in outcome.calls:
        named |= policy.order_ids_mentioned(str(c.result.get("reason", "")))
    # One query for the turn (none when no order was named); the customer's own orders among those named.
    queryable = sorted(n for n in named if policy.order_id_canonical(n))
    own = set(Order.objects.filter(customer=customer, pk__in=queryable).values_list("pk", flat=True))
    ToolCall.objects.bulk_create(
        ToolCall(
            message=reply,
            tool=c.tool[:64],
            order_id=str(c.result["order_id"])[:32] if c.result.get("order_id") else "",
            ok=bool(c.result.get("ok")),
            error=str(c.result.get("error", ""))[:32],
            reason=policy.tool_reason_stored(
                str(c.result.get("reason", "")), order_id=c.result.get("order_id"), own_orders=own
            ),
            action_number=str(c.result.get("action_id", ""))[:12],
            ticket_number=str(c.result.get("ticket_id", ""))[:12],
        )
        for c in outcome.calls
    )


def _model_failed(
    conversation: Conversation, customer_message: ChatMessage, customer: Customer, exc: LLMError
) -> TurnResult:
    with transaction.atomic():
        # The conversation's one open handoff ticket carries the message: a new one, or the words added to
        # the one already open (a second failure in the same conversation opens no second ticket).
        ticket, created = ticket_handoff_get_or_create(
            customer=customer,
            chat_conversation_id=conversation.pk,
            category=Ticket.Category.OTHER,
            subject=f"[채팅 장애 접수] {customer_message.content[:80]}",
            body=customer_message.content,
            source=Ticket.Source.CHAT_FAILURE,
            author=customer.user,
            # The earlier conversation, if any: a first message is already the ticket's own body.
            transcript=conversation_transcript(conversation_id=conversation.pk)
            if conversation.messages.exclude(pk=customer_message.pk).exists()
            else "",
        )
        if not created:
            ticket_message_add(ticket=ticket, body=customer_message.content, author=customer.user)
        code, label = ticket.status, ticket.get_status_display()
        opened = ToolResult.of("create_ticket", ok=True, ticket_id=ticket.number, status=code, status_display=label)
        reply = ChatMessage.objects.create(
            conversation=conversation,
            role=ChatMessage.Role.ASSISTANT,
            content=_with_after_hours_notice(
                prompts.APOLOGY.format(ticket=ticket.number), [after_hours_notice(now(), business_calendar())]
            ),
            tool_results=[opened.as_dict()],
            outcome=ChatMessage.Outcome.MODEL_FAILED,
            ticket=ticket,
        )
    log.warning(
        "chat.model_failed conversation_id=%s ticket_id=%s error_class=%s",
        conversation.pk,
        ticket.number,
        exc.error_class,
    )
    return TurnResult(conversation, customer_message, reply)


# --- what reaches the conversation from the desk ----------------------------------------------------------------
def _line_append(*, conversation_id, origin: str, **fields) -> ChatMessage | None:
    """Append one line to the conversation, once per origin (a hook run twice adds nothing), and move the
    conversation up the customer's list. Runs inside the caller's transaction."""
    existing = ChatMessage.objects.filter(origin=origin).first()
    if existing is not None:
        return existing
    message = ChatMessage.objects.create(conversation_id=conversation_id, origin=origin, **fields)
    Conversation.objects.filter(pk=conversation_id).update(updated_at=now())
    return message


def chat_operator_reply_append(*, ticket: Ticket, message: TicketMessage, actor) -> ChatMessage | None:
    """The tickets reply-stored hook: an operator's answer on a ticket a conversation handed over is appended to
    that conversation, in the answer's transaction (the reply box, the staff API and an applied draft alike).
    The author is the operator's display name when they set one, never their login."""
    if ticket.chat_conversation_id is None:
        return None
    name = f"{actor.last_name}{actor.first_name}".strip() if actor is not None else ""
    line = _line_append(
        conversation_id=ticket.chat_conversation_id,
        origin=f"ticket_message:{message.pk}",
        role=ChatMessage.Role.OPERATOR,
        content=message.body,
        ticket=ticket,
        author_name=name[:150],
    )
    log.info("chat.operator_reply conversation_id=%s ticket_id=%s", ticket.chat_conversation_id, ticket.number)
    return line


def request_conversation_id(*, record: ActionRecord):
    """The conversation whose agent made the request (its first successful tool call that returned the
    record's number), or None for a request made elsewhere (staff, a command)."""
    return (
        ToolCall.objects.filter(
            action_number=record.number, ok=True, message__conversation__customer_id=record.customer_id
        )
        .order_by("id")
        .values_list("message__conversation_id", flat=True)
        .first()
    )


def chat_action_outcome_append(*, record: ActionRecord, actor: Actor) -> ChatMessage | None:
    """The actions outcome hook: 승인 / 반려 / 환불완료 / 처리실패 of a money request appear in the conversation
    that made it, as a line built from the record, in the decision's transaction."""
    if record.kind not in ActionRecord.MONEY_KINDS:
        return None
    conversation_id = request_conversation_id(record=record)
    if conversation_id is None:
        return None
    order = Order.objects.select_related("product").get(pk=record.order_id)
    text = policy.outcome_line(
        number=record.number,
        kind=record.kind,
        status=record.status,
        product=order.product.name,
        amount=won(record.refund_amount if record.refund_amount is not None else order.amount),
    )
    if text is None:
        return None
    code, label = record.status, record.status_label
    decided = ToolResult.of("request_refund", ok=True, action_id=record.number, status=code, status_display=label)
    line = _line_append(
        conversation_id=conversation_id,
        origin=f"action:{record.pk}:{record.status}",
        role=ChatMessage.Role.SYSTEM,
        content=text,
        tool_results=[decided.as_dict()],
    )
    log.info(
        "chat.action_outcome conversation_id=%s action_id=%s status=%s", conversation_id, record.number, record.status
    )
    return line


def conversation_replies_seen(*, customer: Customer, messages: list[ChatMessage]) -> int:
    """The customer read these lines (GET /api/chat/{id}/): the tickets whose operator answers were among them
    count as opened, so their unread badge clears as it does when the ticket thread is opened."""
    ticket_ids = {m.ticket_id for m in messages if m.role == ChatMessage.Role.OPERATOR and m.ticket_id}
    return tickets_seen_by_customer(customer=customer, ticket_ids=ticket_ids) if ticket_ids else 0

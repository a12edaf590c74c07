"""One customer chat turn. The customer's words are committed before any model call; a model
failure ends in an apology and a ticket that carries the message, so nothing is lost."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.db import transaction

from actions.tools import make_action_tools
from chat import prompts
from chat.agent import AgentOutcome, run_agent
from chat.models import ChatMessage, Conversation, ToolCall
from common.errors import DomainError, NotFound
from common.outage import OUTAGE_ERRORS
from llm.errors import LLMError
from orders.models import Customer
from tickets.models import Ticket
from tickets.services import ticket_create

log = logging.getLogger(__name__)

MESSAGE_MAX_CHARS = 4000
HISTORY_TURNS = 20
RESULT_KEYS = ("tool", "ok", "action_id", "ticket_id", "status", "status_code", "reason", "needs_clarification")


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


def _public_result(tool: str, result: dict) -> dict:
    """What the API and page show of a tool result: codes plus Korean labels, nothing else."""
    out = {"tool": tool, **{k: result[k] for k in RESULT_KEYS[1:] if k in result}}
    if "status_code" in out:
        out["status_display"] = out.pop("status")
        out["status"] = out.pop("status_code")
    return out


def chat_turn(*, customer: Customer, text: object, conversation_id: uuid.UUID | str | None = None) -> TurnResult:
    text = validate_message(text)
    # 1. Store the customer's words first, in their own transaction.
    with transaction.atomic():
        if conversation_id:
            conversation = conversation_get(customer=customer, conversation_id=conversation_id)
        else:
            conversation = Conversation.objects.create(customer=customer)
        earlier = list(conversation.messages.order_by("-id").values_list("role", "content")[: HISTORY_TURNS * 2])[::-1]
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
    registry = make_action_tools(customer)
    try:
        outcome = run_agent(registry=registry, messages=prompts.build_messages(history=earlier, current=text))
    except LLMError as exc:
        return _model_failed(conversation, customer_message, customer, exc)
    # 3. The reply and what the tools did.
    results = [_public_result(c.tool, c.result) for c in outcome.calls]
    try:
        with transaction.atomic():
            reply = ChatMessage.objects.create(
                conversation=conversation,
                role=ChatMessage.Role.ASSISTANT,
                content=outcome.reply,
                tool_results=results,
                outcome=ChatMessage.Outcome.BOUNDED if outcome.bounded else ChatMessage.Outcome.OK,
                model=outcome.model,
            )
            _record_calls(reply, outcome)
            conversation.save(update_fields=["updated_at"])
    except OUTAGE_ERRORS as exc:  # what the tools did is committed: show it with the "received" answer
        return _reply_not_stored(conversation, customer_message, exc, tool_results=results)
    log.info(
        "chat.turn conversation_id=%s customer_id=%s tool_calls=%d bounded=%s model=%s",
        conversation.pk,
        customer.pk,
        len(outcome.calls),
        outcome.bounded,
        outcome.model,
    )
    return TurnResult(conversation, customer_message, reply)


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


def _record_calls(reply: ChatMessage, outcome: AgentOutcome) -> None:
    ToolCall.objects.bulk_create(
        ToolCall(
            message=reply,
            tool=c.tool[:64],
            ok=bool(c.result.get("ok")),
            error=str(c.result.get("error", ""))[:32],
            reason=str(c.result.get("reason", ""))[:300],
            action_number=str(c.result.get("action_id", ""))[:12],
            ticket_number=str(c.result.get("ticket_id", ""))[:12],
        )
        for c in outcome.calls
    )


def _model_failed(
    conversation: Conversation, customer_message: ChatMessage, customer: Customer, exc: LLMError
) -> TurnResult:
    with transaction.atomic():
        ticket = ticket_create(
            customer=customer,
            category=Ticket.Category.OTHER,
            subject=f"[채팅 장애 접수] {customer_message.content[:80]}",
            body=customer_message.content,
            source=Ticket.Source.CHAT_FAILURE,
            author=customer.user,
        )
        reply = ChatMessage.objects.create(
            conversation=conversation,
            role=ChatMessage.Role.ASSISTANT,
            content=prompts.APOLOGY.format(ticket=ticket.number),
            tool_results=[
                {
                    "tool": "create_ticket",
                    "ok": True,
                    "ticket_id": ticket.number,
                    "status": ticket.status,
                    "status_display": ticket.get_status_display(),
                }
            ],
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

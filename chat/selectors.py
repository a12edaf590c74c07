"""Reads of the customer's conversations."""

from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery

from actions.policy import CLARIFY_REASON
from chat.models import ChatMessage, Conversation, ToolCall
from orders.models import Customer

CONVERSATION_LIST_LIMIT = 50
FIRST_LINE_MAX = 60


def conversation_list(*, customer: Customer) -> QuerySet[Conversation]:
    """The customer's own conversations, newest activity first, with their opening message (`first_message`)
    and message count. Never anyone else's: the filter is the customer, not a parameter."""
    first = ChatMessage.objects.filter(conversation=OuterRef("pk"), role=ChatMessage.Role.CUSTOMER).order_by("id")
    return (
        Conversation.objects.filter(customer=customer)
        .annotate(first_message=Subquery(first.values("content")[:1]), message_count=Count("messages"))
        .filter(message_count__gt=0)
        .order_by("-updated_at", "-created_at")
    )


def first_line(text: str | None) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= FIRST_LINE_MAX else line[: FIRST_LINE_MAX - 1] + "…"


TRANSCRIPT_MESSAGES = 30
TRANSCRIPT_LINE_MAX = 600
TRANSCRIPT_MAX = 3500
ROLE_NAMES = {
    ChatMessage.Role.CUSTOMER: "고객",
    ChatMessage.Role.ASSISTANT: "AI 상담원",
    ChatMessage.Role.OPERATOR: "상담원",
    ChatMessage.Role.SYSTEM: "안내",
}


def conversation_transcript(*, conversation_id) -> str:
    """The conversation so far as plain lines ("고객: …" / "AI 상담원: …"), the most recent messages within a
    size bound (older ones are dropped first). Unmasked: the ticket service masks it where it is stored."""
    rows = list(
        ChatMessage.objects.filter(conversation_id=conversation_id)
        .order_by("-id")
        .values_list("role", "content")[:TRANSCRIPT_MESSAGES]
    )[::-1]
    lines = []
    for role, content in rows:
        text = " ".join((content or "").split())
        if len(text) > TRANSCRIPT_LINE_MAX:
            text = text[: TRANSCRIPT_LINE_MAX - 1] + "…"
        lines.append(f"{ROLE_NAMES.get(role, role)}: {text}")
    while len(lines) > 1 and sum(len(line) + 1 for line in lines) > TRANSCRIPT_MAX:
        lines.pop(0)
    return "\n".join(lines)


TOOL_REFUSALS_LISTED = 10


def tool_refusal_list(*, customer_id: str, order_id: str, limit: int = TOOL_REFUSALS_LISTED) -> QuerySet[ToolCall]:
    """The customer's tool calls on the order that a rule refused (e.g. 단순변심 outside the window), newest
    first. Not refusals: the reason question (a clarification) and the registry's own errors (bad arguments,
    an unknown tool), which say nothing about the order."""
    return (
        ToolCall.objects.filter(ok=False, error="", order_id=order_id, message__conversation__customer_id=customer_id)
        .exclude(reason=CLARIFY_REASON)
        .order_by("-created_at", "-id")[:limit]
    )


def money_request_refused(*, conversation_id) -> bool:
    """Did the rules refuse a refund or cancellation earlier in this conversation (not the reason question, not
    a malformed call)? A person asked for afterwards gets the ticket sooner (tickets.policy.initial_priority)."""
    return (
        ToolCall.objects.filter(message__conversation_id=conversation_id, tool="request_refund", ok=False, error="")
        .exclude(reason=CLARIFY_REASON)
        .exists()
    )

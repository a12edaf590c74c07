"""Reads of the customer's conversations."""

from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery

from chat.models import ChatMessage, Conversation
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

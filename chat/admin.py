from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html_join

from actions.models import ActionRecord
from actions.record_sections import RecordNote, RecordSection, record_section_register
from chat.models import ChatMessage, Conversation, ToolCall
from chat.selectors import tool_refusal_list
from chat.tools import TOOLS, tool_error_label, tool_label
from common.display import labelled
from privacy.admin import AccessLoggedAdmin
from privacy.models import AccessRecord
from tickets.models import Ticket
from tickets.sections import SIDE, TicketSection, ticket_section_register


class ChatMessageInline(admin.TabularInline):
    model = ChatMessage
    extra = 0
    can_delete = False
    fields = ("created_at", "role", "content", "outcome", "model", "ticket")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Conversation)
class ConversationAdmin(AccessLoggedAdmin, admin.ModelAdmin):
    access_object_type = AccessRecord.ObjectType.CONVERSATION
    list_display = ("id", "customer", "created_at", "updated_at")
    search_fields = ("=customer__customer_id",)
    list_select_related = ("customer",)
    readonly_fields = ("customer", "created_at", "updated_at", "handoff_tickets")
    inlines = [ChatMessageInline]

    @admin.display(description="연결된 문의")
    def handoff_tickets(self, obj: Conversation) -> str:
        """The tickets this conversation handed to a person (the link back from Ticket.chat_conversation_id)."""
        tickets = Ticket.objects.filter(chat_conversation_id=obj.pk).order_by("id")
        if not tickets:
            return "-"
        return format_html_join(
            ", ",
            '<a href="{}">{}</a> ({})',
            ((reverse("admin:tickets_ticket_change", args=[t.pk]), t.number, t.get_status_display()) for t in tickets),
        )

    def has_add_permission(self, request):
        return False


class ToolFilter(admin.SimpleListFilter):
    """The tools by their Korean names (the stored value is the English name the model called)."""

    title = "도구"
    parameter_name = "tool"

    def lookups(self, request, model_admin):
        seen = set(model_admin.get_queryset(request).values_list("tool", flat=True).distinct())
        names = [name for name in TOOLS if name in seen] + sorted(seen - set(TOOLS))
        return [(name, tool_label(name)) for name in names]

    def queryset(self, request, queryset):
        return queryset.filter(tool=self.value()) if self.value() else queryset


class ErrorFilter(admin.SimpleListFilter):
    title = "오류 구분"
    parameter_name = "error"

    def lookups(self, request, model_admin):
        codes = model_admin.get_queryset(request).exclude(error="").values_list("error", flat=True).distinct()
        return [("-", "없음 (도구가 판정)")] + [(code, tool_error_label(code)) for code in sorted(codes)]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        return queryset.filter(error="" if self.value() == "-" else self.value())


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    list_display = ("created_at", "tool_display", "ok", "error_display", "reason_display", "order_id", "action_number")
    list_filter = (ToolFilter, "ok", ErrorFilter)
    search_fields = ("=order_id", "=action_number", "=ticket_number")
    fields = (
        "created_at",
        "tool_display",
        "ok",
        "error_display",
        "reason_display",
        "order_id",
        "action_number",
        "ticket_number",
        "message",
    )
    readonly_fields = fields

    @admin.display(description="도구", ordering="tool")
    def tool_display(self, obj: ToolCall) -> str:
        # The English name stays reachable for whoever reads logs or code, but only as a tooltip.
        return labelled(obj.tool, tool_label(obj.tool))

    @admin.display(description="오류 구분", ordering="error")
    def error_display(self, obj: ToolCall) -> str:
        return tool_error_label(obj.error) or "-"

    @admin.display(description="거절 사유")
    def reason_display(self, obj: ToolCall) -> str:
        # A registry error's reason is written for the model (it lists the tools' English names): the label
        # says it; the words themselves stay in the tooltip.
        if obj.error:
            return labelled(obj.reason, tool_error_label(obj.error))
        return obj.reason or "-"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ToolCall]:
        return super().get_queryset(request).select_related("message")


def _refused_tool_calls(record: ActionRecord) -> list[RecordNote]:
    return [
        RecordNote(at=call.created_at, label=tool_label(call.tool), text=call.reason, hint=call.tool)
        for call in tool_refusal_list(customer_id=record.customer_id, order_id=record.order_id)
    ]


# The approval record page (actions' admin) lists this customer's refused tool calls on the same order beside
# the request: actions sits below chat and cannot ask for them, so chat registers the section.
record_section_register(
    RecordSection(
        key="tool-refusals",
        title="같은 주문에서 에이전트가 거절한 요청",
        empty_text="없음",
        notes=_refused_tool_calls,
    )
)


def _chat_link(request: HttpRequest, ticket: Ticket) -> dict | None:
    """A chat handoff links back to its conversation (the transcript is also a system note on the ticket)."""
    if not ticket.chat_conversation_id or not request.user.has_perm("chat.view_conversation"):
        return None
    return {"chat_conversation_url": reverse("admin:chat_conversation_change", args=[ticket.chat_conversation_id])}


# The ticket page (tickets' admin) links a chat handoff to its conversation: tickets sits below chat.
ticket_section_register(
    TicketSection(key="chat-link", slot=SIDE, template="admin/chat/ticket_chat_link.html", context=_chat_link)
)


def _customer_requests(request: HttpRequest, ticket: Ticket) -> dict | None:
    """The customer's refunds, cancellations, exchanges and address changes (the agent's 처리 기록), newest first."""
    if not request.user.has_perm("actions.view_actionrecord"):
        return None
    return {"requests": list(ActionRecord.objects.filter(customer_id=ticket.customer_id).order_by("-id")[:10])}


# The ticket page's side panel lists the customer's requests: actions and tickets are independent, so chat (which
# files those requests for the customer) registers the section.
ticket_section_register(
    TicketSection(key="requests", slot=SIDE, template="admin/chat/ticket_requests.html", context=_customer_requests)
)

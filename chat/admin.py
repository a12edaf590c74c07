from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html_join

from chat.models import ChatMessage, Conversation, ToolCall
from tickets.models import Ticket


class ChatMessageInline(admin.TabularInline):
    model = ChatMessage
    extra = 0
    can_delete = False
    fields = ("created_at", "role", "content", "outcome", "model", "ticket")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
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


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    list_display = ("created_at", "tool", "ok", "error", "reason", "action_number", "ticket_number")
    list_filter = ("tool", "ok", "error")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

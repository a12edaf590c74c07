from django.contrib import admin

from chat.models import ChatMessage, Conversation, ToolCall


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
    readonly_fields = ("customer", "created_at", "updated_at")
    inlines = [ChatMessageInline]

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

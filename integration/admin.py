from django.contrib import admin, messages
from django.utils.translation import ngettext

from common.actors import Actor
from integration.models import Integration, ShopEvent
from integration.services import webhook_delivery_status, webhook_replay


@admin.register(Integration)
class IntegrationAdmin(admin.ModelAdmin):
    """Keys and secrets are issued by `manage.py integration_create` (shown once); the admin edits the rest."""

    list_display = ("name", "api_key_prefix", "webhook_url", "active", "created_at")
    list_filter = ("active",)
    fields = ("name", "api_key_prefix", "webhook_url", "scopes", "allowed_origins", "active", "created_at")
    readonly_fields = ("name", "api_key_prefix", "created_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ShopEvent)
class ShopEventAdmin(admin.ModelAdmin):
    list_display = ("event_id", "type", "integration", "created_at", "delivery", "attempts", "last_error")
    list_filter = ("type", "integration")
    search_fields = ("event_id",)
    readonly_fields = ("integration", "event_id", "type", "data", "created_at")
    actions = ["replay"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="전송 상태")
    def delivery(self, obj: ShopEvent) -> str:
        message = webhook_delivery_status(obj)
        return message.get_status_display() if message else "-"

    @admin.display(description="시도")
    def attempts(self, obj: ShopEvent) -> int:
        message = webhook_delivery_status(obj)
        return message.attempts if message else 0

    @admin.display(description="마지막 오류")
    def last_error(self, obj: ShopEvent) -> str:
        message = webhook_delivery_status(obj)
        return message.last_error if message else ""

    def has_replay_permission(self, request) -> bool:
        return request.user.has_perm("integration.change_integration")

    @admin.action(description="선택한 이벤트 웹훅 다시 보내기", permissions=["replay"])
    def replay(self, request, queryset):
        actor = Actor.operator(request.user)
        sent = 0
        for event in queryset.select_related("integration"):
            if not event.integration.webhook_url:
                continue
            webhook_replay(event=event, actor=actor)
            sent += 1
        self.message_user(
            request,
            ngettext("%d개 이벤트를 다시 보냅니다.", "%d개 이벤트를 다시 보냅니다.", sent) % sent,
            messages.SUCCESS,
        )

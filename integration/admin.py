from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Concat
from django.utils.translation import ngettext

from common.actors import Actor
from common.display import code_html
from common.events import EVENT_TYPE_LABELS
from common.models import OutboxMessage
from integration.models import Integration, ShopEvent
from integration.services import WEBHOOK_TOPIC, webhook_replay


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
    list_display = ("event_id", "type_display", "integration", "created_at", "delivery", "attempts", "last_error")
    list_filter = ("type", "integration")
    list_select_related = ("integration",)
    search_fields = ("event_id",)
    readonly_fields = ("integration", "event_id", "type", "data", "created_at")
    actions = ["replay"]

    def get_queryset(self, request):
        # The webhook delivery is the outbox row keyed by the event id: one subquery per column, not per row.
        delivery = OutboxMessage.objects.filter(dedupe_key=Concat(Value(f"{WEBHOOK_TOPIC}:"), OuterRef("event_id")))
        return (
            super()
            .get_queryset(request)
            .annotate(
                delivery_status=Subquery(delivery.values("status")[:1]),
                delivery_attempts=Subquery(delivery.values("attempts")[:1]),
                delivery_error=Subquery(delivery.values("last_error")[:1]),
            )
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="종류", ordering="type")
    def type_display(self, obj: ShopEvent) -> str:
        return code_html(obj.type, EVENT_TYPE_LABELS, obj.type)

    @admin.display(description="전송 상태")
    def delivery(self, obj: ShopEvent) -> str:
        status = getattr(obj, "delivery_status", None)
        return dict(OutboxMessage.Status.choices).get(status, "-") if status else "-"

    @admin.display(description="시도")
    def attempts(self, obj: ShopEvent) -> int:
        return getattr(obj, "delivery_attempts", None) or 0

    @admin.display(description="마지막 오류")
    def last_error(self, obj: ShopEvent) -> str:
        return getattr(obj, "delivery_error", None) or ""

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

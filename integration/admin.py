from django import forms
from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Concat
from django.utils.translation import ngettext

from common.actors import Actor
from common.display import code_html, labelled
from common.events import EVENT_TYPE_LABELS
from common.models import OutboxMessage
from integration.models import Integration, ShopEvent
from integration.services.integrations import integration_update, integration_webhook_url_problem
from integration.services.webhooks import INTEGRATION_PAUSED, WEBHOOK_TOPIC, webhook_replay

EDITABLE = ("webhook_url", "scopes", "allowed_origins", "active")


def delivery_error_words(code: str) -> str:
    """A delivery's last error (integration.services.webhooks.webhook_attempt) as an operator reads it."""
    if code == "target_forbidden":
        return "내부·사설 주소라 보내지 않음"
    if code == INTEGRATION_PAUSED:
        return "연동 중지: 다시 켜면 전송"
    if code.startswith("http_"):
        status = code.removeprefix("http_")
        if status.startswith("3"):
            return f"HTTP {status} 리디렉션 (따라가지 않음)"
        return f"HTTP {status} 응답"
    return "연결 실패" if code else ""


class IntegrationForm(forms.ModelForm):
    # An address typed without a scheme is taken as https (Django 6's default; stated, so 5.2 does not warn).
    webhook_url = forms.URLField(label="웹훅 URL", max_length=500, required=False, assume_scheme="https")

    class Meta:
        model = Integration
        fields = EDITABLE

    def clean_webhook_url(self) -> str:
        url = self.cleaned_data.get("webhook_url") or ""
        problem = integration_webhook_url_problem(url)
        if problem:
            raise forms.ValidationError(problem, code="webhook_url")
        return url


@admin.register(Integration)
class IntegrationAdmin(admin.ModelAdmin):
    """Keys and secrets are issued by `manage.py integration_create` (shown once); the admin edits the rest,
    through `integration_update`."""

    form = IntegrationForm
    list_display = ("name", "api_key_prefix", "webhook_url", "active", "created_at")
    list_filter = ("active",)
    fields = ("name", "api_key_prefix", *EDITABLE, "created_at")
    readonly_fields = ("name", "api_key_prefix", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        integration_update(
            integration=obj, actor=Actor.operator(request.user), **{f: form.cleaned_data[f] for f in EDITABLE}
        )
        obj.refresh_from_db()


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
        code = getattr(obj, "delivery_error", None) or ""
        return labelled(code, delivery_error_words(code)) if code else ""

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

import json

from django.contrib import admin
from django.utils.html import format_html

from common.admin import ReadOnlyAdmin
from common.redaction import redact, redact_obj
from diagnostics.models import ServiceEvent


@admin.register(ServiceEvent)
class ServiceEventAdmin(ReadOnlyAdmin):
    """Read-only. The raw message and attributes are never shown: only their redacted form."""

    list_display = (
        "event_label",
        "occurred_at",
        "customer",
        "kind",
        "name",
        "http_method",
        "status_code",
        "latency_ms",
        "error_code",
        "message_preview",
    )
    list_filter = ("kind", "status_code", "error_code")
    search_fields = ("=customer__customer_id", "=trace_id", "=error_code", "name", "=event_key")
    date_hierarchy = "occurred_at"
    list_select_related = ("customer",)
    ordering = ("-occurred_at", "-id")
    fields = (
        "event_label",
        "event_key",
        "customer",
        "occurred_at",
        "kind",
        "name",
        "http_method",
        "status_code",
        "latency_ms",
        "trace_id",
        "span_name",
        "error_code",
        "message_redacted",
        "attributes_redacted",
    )
    readonly_fields = fields

    @admin.display(description="이벤트 ID", ordering="id")
    def event_label(self, obj):
        return obj.event_id

    @admin.display(description="메시지")
    def message_preview(self, obj):
        text = redact(obj.message)
        return text if len(text) <= 80 else text[:79] + "…"

    @admin.display(description="메시지(가림)")
    def message_redacted(self, obj):
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", redact(obj.message))

    @admin.display(description="속성(가림)")
    def attributes_redacted(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(redact_obj(obj.attributes), ensure_ascii=False, indent=2))

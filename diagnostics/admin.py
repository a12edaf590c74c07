from django.contrib import admin
from django.utils.html import format_html

from common.admin import CodeLabelFilter, ReadOnlyAdmin
from common.display import code_html
from common.redaction import redact, redact_obj
from diagnostics.labels import (
    ERROR_CODE_LABELS,
    SPAN_LABELS,
    UNKNOWN_ERROR,
    UNKNOWN_SPAN,
    attributes_html,
    event_name_html,
)
from diagnostics.models import ServiceEvent
from privacy.admin import AccessLoggedAdmin
from privacy.models import AccessRecord


@admin.register(ServiceEvent)
class ServiceEventAdmin(AccessLoggedAdmin, ReadOnlyAdmin):
    access_object_type = AccessRecord.ObjectType.SERVICE_EVENT
    """Read-only. The raw message and attributes are never shown: only their redacted form. Codes (event names,
    error codes, spans, attribute keys) read as Korean labels, the raw code kept in a hover title."""

    list_display = (
        "event_label",
        "occurred_at",
        "customer",
        "kind",
        "name_display",
        "http_method",
        "status_code",
        "latency_ms",
        "error_display",
    )
    list_filter = (
        "kind",
        "status_code",
        CodeLabelFilter.on("error_code", "오류 코드", ERROR_CODE_LABELS, UNKNOWN_ERROR),
    )
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
        "name_display",
        "http_method",
        "status_code",
        "latency_ms",
        "trace_id",
        "span_display",
        "error_display",
        "attributes_redacted",
        "message_redacted",
    )
    readonly_fields = fields

    @admin.display(description="이벤트 ID", ordering="id")
    def event_label(self, obj):
        return obj.event_id

    @admin.display(description="엔드포인트·이벤트", ordering="name")
    def name_display(self, obj):
        return event_name_html(kind=obj.kind, name=redact(obj.name))

    @admin.display(description="오류", ordering="error_code")
    def error_display(self, obj):
        return code_html(obj.error_code, ERROR_CODE_LABELS, UNKNOWN_ERROR)

    @admin.display(description="처리 단계(스팬)")
    def span_display(self, obj):
        return code_html(redact(obj.span_name), SPAN_LABELS, UNKNOWN_SPAN)

    @admin.display(description="원문 로그(가림)")
    def message_redacted(self, obj):
        # A log line is the system's own words (often English, with a stack trace cut): quoted whole, read-only,
        # to copy into a report for the engineers, not translated.
        text = redact(obj.message)
        if not text:
            return "-"
        return format_html(
            '<textarea readonly rows="{}" cols="100" aria-label="원문 로그(가림)" class="cs-log">{}</textarea>',
            min(12, text.count("\n") + 2),
            text,
        )

    @admin.display(description="속성(가림)")
    def attributes_redacted(self, obj):
        return attributes_html(redact_obj(obj.attributes))

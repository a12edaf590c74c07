from django.contrib import admin
from django.utils.html import format_html

from common.admin import ReadOnlyAdmin
from llm.models import LLMCall

# What each caller asks a model for (LLMCall.purpose is written by the callers: chat, drafts, evals). A purpose
# this table does not know reads as "기타 용도", the raw value kept in the hover title.
PURPOSE_LABELS: dict[str, str] = {
    "chat": "채팅 상담",
    "draft": "답변 초안",
    "qa": "초안 QA",
    "confidence": "신뢰도 평가",
    "tags": "태그 추천",
    "diagnosis": "오류 진단",
    "eval_user": "평가용 가상 고객",
    "eval_judge": "평가 채점",
}
UNKNOWN_PURPOSE = "기타 용도"


def purpose_label(purpose: str) -> str:
    return PURPOSE_LABELS.get(purpose, UNKNOWN_PURPOSE)


class PurposeFilter(admin.SimpleListFilter):
    title = "용도"
    parameter_name = "purpose"

    def lookups(self, request, model_admin):
        purposes = model_admin.get_queryset(request).order_by("purpose").values_list("purpose", flat=True).distinct()
        choices, unknown = [], 0
        for purpose in purposes:
            label = PURPOSE_LABELS.get(purpose)
            if label is None:
                unknown += 1  # numbered, so two new purposes stay two choices
                label = f"{UNKNOWN_PURPOSE} {unknown}"
            choices.append((purpose, label))
        return choices

    def queryset(self, request, queryset):
        return queryset.filter(purpose=self.value()) if self.value() else queryset


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin):
    """A log, not a workflow: operators read it, nobody edits it."""

    list_display = [
        "created_at",
        "purpose_display",
        "model",
        "is_fallback",
        "outcome",
        "error_class",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
    ]
    list_filter = [PurposeFilter, "outcome", "model", "is_fallback"]
    date_hierarchy = "created_at"
    list_per_page = 100
    fields = [
        "created_at",
        "purpose_display",
        "model",
        "is_fallback",
        "outcome",
        "error_class",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
    ]
    readonly_fields = fields

    @admin.display(description="용도", ordering="purpose")
    def purpose_display(self, obj: LLMCall) -> str:
        return format_html('<span title="{}">{}</span>', obj.purpose, purpose_label(obj.purpose))

from django.contrib import admin

from common.admin import CodeLabelFilter, ReadOnlyAdmin
from common.display import labelled
from llm.labels import PURPOSE_LABELS, UNKNOWN_PURPOSE, purpose_label
from llm.models import LLMCall


class PurposeFilter(CodeLabelFilter):
    title = "용도"
    parameter_name = "purpose"
    labels = PURPOSE_LABELS
    unknown = UNKNOWN_PURPOSE


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
    fields = list_display  # the record page shows what the list shows: a log row has nothing more
    readonly_fields = fields

    @admin.display(description="용도", ordering="purpose")
    def purpose_display(self, obj: LLMCall) -> str:
        return labelled(obj.purpose, purpose_label(obj.purpose))

from django.contrib import admin

from common.admin import ReadOnlyAdmin
from common.display import labelled
from llm.labels import PURPOSE_LABELS, UNKNOWN_PURPOSE, purpose_label
from llm.models import LLMCall


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
    fields = list_display  # the record page shows what the list shows: a log row has nothing more
    readonly_fields = fields

    @admin.display(description="용도", ordering="purpose")
    def purpose_display(self, obj: LLMCall) -> str:
        return labelled(obj.purpose, purpose_label(obj.purpose))

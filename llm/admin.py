from django.contrib import admin
from django.http import HttpRequest

from llm.models import LLMCall


@admin.register(LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    """A log, not a workflow: operators read it, nobody edits it."""

    list_display = [
        "created_at",
        "purpose",
        "model",
        "is_fallback",
        "outcome",
        "error_class",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
    ]
    list_filter = ["purpose", "outcome", "model", "is_fallback"]
    date_hierarchy = "created_at"
    list_per_page = 100

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: LLMCall | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: LLMCall | None = None) -> bool:
        return False

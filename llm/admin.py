from django.contrib import admin

from common.admin import ReadOnlyAdmin
from llm.models import LLMCall


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin):
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

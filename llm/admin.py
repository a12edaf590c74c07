from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path

from common.admin import CodeLabelFilter, ReadOnlyAdmin
from common.clock import today
from common.display import labelled
from llm.disclosure import disclosure_page
from llm.labels import PURPOSE_LABELS, UNKNOWN_PURPOSE, purpose_label
from llm.models import LLMCall


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
    list_filter = [
        CodeLabelFilter.on("purpose", "용도", PURPOSE_LABELS, UNKNOWN_PURPOSE),
        "outcome",
        "model",
        "is_fallback",
    ]
    date_hierarchy = "created_at"
    list_per_page = 100
    fields = list_display  # the record page shows what the list shows: a log row has nothing more
    readonly_fields = fields

    @admin.display(description="용도", ordering="purpose")
    def purpose_display(self, obj: LLMCall) -> str:
        return labelled(obj.purpose, purpose_label(obj.purpose))

    def get_urls(self):
        view = self.admin_site.admin_view(self.disclosure_view)
        return [path("disclosure/", view, name="llm_llmcall_disclosure"), *super().get_urls()]

    def disclosure_view(self, request):
        """개인정보 전송 고지: what each purpose sends to which endpoint (llm.disclosure)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": "AI 모델로 보내는 개인정보 고지",
            "opts": self.model._meta,
            **disclosure_page(generated_on=today().isoformat()),
        }
        return TemplateResponse(request, "admin/llm/llmcall/disclosure.html", context)

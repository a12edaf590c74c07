"""Operators rate drafts here (👍/👎 with a reason); finished eval runs are shown with their charts."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe

from common.admin import ReadOnlyAdmin
from common.errors import DomainError
from evals.charts import eval_run_charts
from evals.compare import compare_sections
from evals.models import DraftRating, EvalRun
from evals.ratings import draft_rating_create
from evals.services import EvalUsageError, eval_compare_run


@admin.register(DraftRating)
class DraftRatingAdmin(admin.ModelAdmin):
    """Add a rating from a draft (`/admin/evals/draftrating/add/?draft=<id>`); the service freezes what was
    rated. Ratings are not edited afterwards: rate again to replace your own."""

    list_display = ("draft", "verdict", "reason", "rated_by", "draft_model", "created_at")
    list_filter = ("verdict", "reason", "draft_model")
    raw_id_fields = ("draft",)
    fields = ("draft", "verdict", "reason", "note")
    readonly_fields = ()

    def get_fields(self, request, obj=None):
        if obj is None:
            return self.fields
        return (*self.fields, "answer", "customer_input", "draft_model", "qa_model", "rated_by", "created_at")

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj) if obj else ()

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def get_urls(self):
        rate = path(
            "rate/<int:draft_id>/",
            self.admin_site.admin_view(self.rate_view),
            name="evals_draftrating_rate",
        )
        return [rate, *super().get_urls()]

    def rate_view(self, request: HttpRequest, draft_id: int):
        """The 👍/👎 buttons under a draft on the ticket review page post here; back to that page after."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            rating = draft_rating_create(
                draft_id=draft_id,
                verdict=request.POST.get("verdict", ""),
                reason=request.POST.get("reason", ""),
                note=request.POST.get("note", ""),
                actor=request.user,
            )
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        else:
            self.message_user(
                request,
                f"초안 D{draft_id}을(를) {rating.get_verdict_display()}({rating.get_reason_display()})로 평가했습니다.",
            )
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            back = reverse("admin:evals_draftrating_changelist")
        return HttpResponseRedirect(back)

    def save_model(self, request, obj, form, change) -> None:
        try:
            rating = draft_rating_create(
                draft_id=obj.draft_id, verdict=obj.verdict, reason=obj.reason, note=obj.note, actor=request.user
            )
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return
        obj.pk = rating.pk


@admin.register(EvalRun)
class EvalRunAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "suite", "model", "headline")
    list_filter = ("suite", "model")
    fields = ("suite", "model", "created_at", "validity", "charts", "summary")
    readonly_fields = fields
    actions = ("compare_two",)

    @admin.display(description="요약")
    def headline(self, obj: EvalRun) -> str:
        r = obj.report or {}
        invalid = "" if (r.get("validity") or {}).get("valid", True) else "무효 · "
        if obj.suite == EvalRun.Suite.AGENT:
            pass1 = (r.get("pass_hat_k") or {}).get("1")
            return f"{invalid}pass^1={pass1} 정책 위반={len(r.get('policy_violations', []))}"
        return f"{invalid}핵심 재현율={r.get('key_point_recall')} 금지 표현={r.get('must_not_violations')}"

    @admin.display(description="유효성")
    def validity(self, obj: EvalRun) -> str:
        v = (obj.report or {}).get("validity")
        if not v:
            return "기록 없음 (이전 형식의 보고서)"
        counts = f"모델 호출 {v['model_calls']}회 중 실패 {v['model_calls_failed']}회"
        return f"유효 · {counts}" if v["valid"] else f"무효 — {'; '.join(v['reasons'])} ({counts})"

    @admin.display(description="차트")
    def charts(self, obj: EvalRun) -> str:
        svg = "".join(eval_run_charts(obj.suite, obj.report or {}))
        if not ((obj.report or {}).get("validity") or {}).get("valid", True):
            # An invalid run's figures measure the failure path: shown, greyed.
            svg = f'<div class="eval-invalid" style="opacity:.4">{svg}</div>'
        return mark_safe(svg)  # noqa: S308 (escaped SVG)

    @admin.display(description="지표")
    def summary(self, obj: EvalRun) -> str:
        r = obj.report or {}
        keys = [k for k, v in r.items() if not isinstance(v, (list, dict)) or k in ("pass_hat_k", "confidence_auroc")]
        return "\n".join(f"{k}: {r[k]}" for k in keys)

    @admin.action(description="고른 두 에이전트 실행 비교", permissions=["view"])
    def compare_two(self, request, queryset):
        runs = list(queryset.order_by("id"))
        if len(runs) != 2 or any(run.suite != EvalRun.Suite.AGENT for run in runs):
            self.message_user(request, "에이전트 평가 실행을 정확히 두 개 고르세요.", messages.ERROR)
            return None
        url = reverse("admin:evals_evalrun_compare")
        return HttpResponseRedirect(f"{url}?a={runs[0].pk}&b={runs[1].pk}")

    def get_urls(self):
        compare = path("compare/", self.admin_site.admin_view(self.compare_view), name="evals_evalrun_compare")
        return [compare, *super().get_urls()]

    def compare_view(self, request: HttpRequest):
        """Two agent runs side by side: the same sections as `manage.py eval_compare`, as HTML tables."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            prices = None
            if request.GET.get("price_in") and request.GET.get("price_out"):
                prices = (float(request.GET["price_in"]), float(request.GET["price_out"]))
            comparison, _ = eval_compare_run(
                ref_a=request.GET.get("a", ""),
                ref_b=request.GET.get("b", ""),
                prices=prices,
                currency=request.GET.get("currency", "USD"),
                out_dir=None,
            )
        except (EvalUsageError, ValueError) as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:evals_evalrun_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "평가 실행 비교",
            "sections": compare_sections(comparison),
            "query": {"a": request.GET.get("a"), "b": request.GET.get("b")},
        }
        return TemplateResponse(request, "admin/evals/compare.html", context)

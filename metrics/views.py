"""The staff dashboard at /admin/metrics/: filter form → `metrics_compute` → server-side SVG charts."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe

from metrics.charts import dashboard_charts
from metrics.forms import MetricsFilterForm
from metrics.selectors import metrics_compute


def metrics_dashboard_view(request: HttpRequest) -> HttpResponse:
    """Staff only: wrapped in `admin.site.admin_view` in metrics/urls.py (others go to the admin login)."""
    form = MetricsFilterForm(request.GET or None)
    report = None
    if not form.is_bound or form.is_valid():
        data = form.cleaned_data if form.is_bound else {}
        report = metrics_compute(since=data.get("since"), until=data.get("until"))
        if request.GET.get("format") == "json":
            return JsonResponse(report, json_dumps_params={"ensure_ascii": False})
    elif request.GET.get("format") == "json":
        detail = " ".join(message for messages in form.errors.values() for message in messages)
        return JsonResponse(
            {"code": "invalid_range", "detail": detail}, status=400, json_dumps_params={"ensure_ascii": False}
        )
    context = {
        **admin.site.each_context(request),
        "title": "운영 지표",
        "form": form,
        "report": report,
        # charts.py escapes every label and value it writes.
        "charts": {name: mark_safe(svg) for name, svg in dashboard_charts(report).items()} if report else {},
        "query": request.GET.urlencode(),
    }
    return TemplateResponse(request, "metrics/dashboard.html", context)

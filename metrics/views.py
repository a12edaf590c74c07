"""The staff dashboard at /admin/metrics/: filter form → `metrics_compute` → server-side SVG charts.

Without a range in the query the dashboard (and its JSON) shows `metrics.policy.default_range` — the last two
weeks up to the later of today and the last day with activity — and says so; `?since=&until=` is every day."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe

from common.clock import today
from metrics.charts import dashboard_panels, dashboard_tables
from metrics.formatting import default_range_note, korean_day
from metrics.forms import MetricsFilterForm
from metrics.policy import DEFAULT_RANGE_DAYS, default_range
from metrics.selectors import csat_low_list, metrics_activity_span, metrics_compute

DASHBOARD_PERMISSION = "metrics.view_dashboard"  # metrics.models.Dashboard


def metrics_dashboard_view(request: HttpRequest) -> HttpResponse:
    """Staff with `metrics.view_dashboard`: wrapped in `admin.site.admin_view` in metrics/urls.py (anyone not
    staff goes to the admin login); staff without the permission get 403, the JSON as `{code, detail}`."""
    as_json = request.GET.get("format") == "json"
    if not request.user.has_perm(DASHBOARD_PERMISSION):
        if as_json:
            return JsonResponse(
                {"code": "permission_denied", "detail": "운영 지표를 볼 권한이 없습니다."},
                status=403,
                json_dumps_params={"ensure_ascii": False},
            )
        raise PermissionDenied("운영 지표를 볼 권한이 없습니다.")
    on = today()
    context: dict[str, Any] = {"range_note": "", "range_links": []}
    if "since" in request.GET or "until" in request.GET:
        form = MetricsFilterForm(request.GET)
        if not form.is_valid():
            if as_json:
                detail = " ".join(message for messages in form.errors.values() for message in messages)
                return JsonResponse(
                    {"code": "invalid_range", "detail": detail}, status=400, json_dumps_params={"ensure_ascii": False}
                )
            return _page(request, form, None, context)
        since, until = form.cleaned_data.get("since"), form.cleaned_data.get("until")
    else:
        first, last = metrics_activity_span()
        since, until = default_range(last, on)
        form = MetricsFilterForm(initial={"since": since, "until": until})
        context["range_note"] = default_range_note(
            since=since, until=until, today=on, first_activity=first, last_activity=last
        )
        if until > on:  # the demo's own days (up to CS_TODAY) lie outside the default: one click away
            context["range_links"].append(
                (
                    f"기준일({korean_day(on)})까지 {DEFAULT_RANGE_DAYS}일",
                    _query(on - timedelta(DEFAULT_RANGE_DAYS - 1), on),
                )
            )
    report = metrics_compute(since=since, until=until)
    report["low_csat"] = csat_low_list(since=since, until=until)
    if as_json:
        return JsonResponse(report, json_dumps_params={"ensure_ascii": False})
    context["json_query"] = _query(since, until, format="json")
    return _page(request, form, report, context)


def _query(since: date | None, until: date | None, **extra: str) -> str:
    return urlencode(
        {"since": since.isoformat() if since else "", "until": until.isoformat() if until else "", **extra}
    )


def _page(request: HttpRequest, form: MetricsFilterForm, report: dict | None, extra: dict[str, Any]) -> HttpResponse:
    context = {
        **admin.site.each_context(request),
        "title": "운영 지표",
        "form": form,
        "report": report,
        **extra,
    }
    if report is not None:
        since, until = report["range"]["since"], report["range"]["until"]
        context.update(
            shown_since=korean_day(date.fromisoformat(since)) if since else "처음",
            shown_until=korean_day(date.fromisoformat(until)) if until else "현재",
            # charts.py escapes every label and value it writes.
            panels=[
                {"key": p.key, "caption": p.caption, "svg": mark_safe(p.svg), "empty_line": p.empty_line}
                for p in dashboard_panels(report)
            ],
            tables=dashboard_tables(report),
        )
    return TemplateResponse(request, "metrics/dashboard.html", context)

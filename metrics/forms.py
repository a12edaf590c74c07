from __future__ import annotations

from django import forms
from django.conf import settings

from common.clock import today
from metrics.policy import range_problem


class MetricsFilterForm(forms.Form):
    """The dashboard's date filter (GET). Both ends optional and inclusive, Asia/Seoul days."""

    since = forms.DateField(label="시작일", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label="종료일", required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict:
        cleaned = super().clean()
        problem = range_problem(
            cleaned.get("since"), cleaned.get("until"), today=today(), max_days=settings.CS_METRICS_MAX_DAYS
        )
        if problem:
            raise forms.ValidationError(problem, code="invalid_range")
        return cleaned

from __future__ import annotations

from django import forms


class MetricsFilterForm(forms.Form):
    """The dashboard's date filter (GET). Both ends optional and inclusive, Asia/Seoul days."""

    since = forms.DateField(label="시작일", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label="종료일", required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict:
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            raise forms.ValidationError("시작일이 종료일보다 늦습니다.")
        return cleaned

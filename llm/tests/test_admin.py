import pytest
from django.urls import reverse

from llm.models import LLMCall

pytestmark = pytest.mark.django_db


@pytest.fixture
def call_row():
    return LLMCall.objects.create(
        purpose="chat",
        model="fast-model",
        is_fallback=False,
        outcome=LLMCall.Outcome.ERROR,
        error_class="RateLimitError",
        latency_ms=12,
    )


def test_changelist_lists_calls_with_filters(admin_client, call_row):
    response = admin_client.get(reverse("admin:llm_llmcall_changelist"), {"outcome__exact": "ERROR"})

    assert response.status_code == 200
    assert "RateLimitError" in response.content.decode()


def test_calls_cannot_be_added_changed_or_deleted(admin_client, call_row):
    assert admin_client.get(reverse("admin:llm_llmcall_add")).status_code == 403
    delete = admin_client.post(reverse("admin:llm_llmcall_delete", args=[call_row.pk]), {"post": "yes"})
    assert delete.status_code == 403
    change = admin_client.post(reverse("admin:llm_llmcall_change", args=[call_row.pk]), {"model": "other"})
    assert change.status_code == 403
    call_row.refresh_from_db()
    assert call_row.model == "fast-model"


def test_purpose_reads_as_korean_with_the_code_only_in_the_title(admin_client, call_row):
    LLMCall.objects.create(purpose="diagnosis", model="m", outcome=LLMCall.Outcome.OK, latency_ms=1)
    LLMCall.objects.create(purpose="summarise", model="m", outcome=LLMCall.Outcome.OK, latency_ms=1)

    html = admin_client.get(reverse("admin:llm_llmcall_changelist")).content.decode()

    assert '<span title="diagnosis">오류 진단</span>' in html
    assert '<span title="summarise">기타 용도</span>' in html
    assert ">오류 진단</a>" in html and ">기타 용도 1</a>" in html  # the filter offers labels
    assert ">summarise<" not in html and ">diagnosis<" not in html
    change = admin_client.get(reverse("admin:llm_llmcall_change", args=[call_row.pk])).content.decode()
    assert '<span title="chat">채팅 상담</span>' in change


def test_every_purpose_the_callers_use_has_a_label():
    import re
    from pathlib import Path

    from django.conf import settings

    from llm.labels import PURPOSE_LABELS

    used = set()
    apps = [d for d in Path(settings.BASE_DIR).iterdir() if d.is_dir() and (d / "__init__.py").exists()]
    for path in (p for app in apps for p in app.rglob("*.py") if "tests" not in p.parts):
        used |= set(re.findall(r"\bpurpose=\"([a-z_]+)\"", path.read_text(encoding="utf-8")))
    assert "chat" in used  # the draft stages' purposes are their declared names (drafts/tests/test_stages.py)
    assert used <= set(PURPOSE_LABELS), used - set(PURPOSE_LABELS)

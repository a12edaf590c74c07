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

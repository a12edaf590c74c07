from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import FaqEntry, KnowledgeChunk
from knowledge.selectors import index_status

pytestmark = pytest.mark.django_db


def test_command_loads_fixtures_builds_and_prints_counts(kiwi):
    out = StringIO()

    call_command("build_knowledge_index", "--load-fixtures", stdout=out)

    assert FaqEntry.objects.exists()
    assert index_status()["built"] is True
    assert f"조각 {KnowledgeChunk.objects.count()}개를 색인했습니다" in out.getvalue()
    assert "FAQ: 추가" in out.getvalue()


def test_command_without_flag_does_not_load_fixtures():
    call_command("build_knowledge_index", stdout=StringIO())
    assert not FaqEntry.objects.exists()


def test_command_with_unknown_doc_fails():
    with pytest.raises(CommandError, match="nope"):
        call_command("build_knowledge_index", "--doc", "nope", stdout=StringIO())

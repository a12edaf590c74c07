from __future__ import annotations

import pytest
from django.urls import reverse

from knowledge.models import KnowledgeChunk, KnowledgeDocument

pytestmark = pytest.mark.django_db


def test_document_page_shows_its_chunks_read_only(admin_client, knowledge_indexed):
    doc = KnowledgeDocument.objects.get(doc_id="refund-policy")
    page = admin_client.get(reverse("admin:knowledge_knowledgedocument_change", args=[doc.pk])).content.decode()
    assert "제6조 환불 시점과 환불 수단" in page  # a chunk's text, shown in the inline
    assert 'name="chunks-0-text"' not in page  # no editable chunk fields


def test_faq_changelist_opens(admin_client, knowledge_indexed):
    response = admin_client.get(reverse("admin:knowledge_faqentry_changelist"))
    assert response.status_code == 200
    assert "환불은 언제 되나요?" in response.content.decode()


def test_rebuild_action_reindexes_the_selected_documents(admin_client, knowledge_indexed):
    doc = KnowledgeDocument.objects.get(doc_id="exchange-policy")
    doc.body = "## 교환\n\n교환 규칙이 바뀌었습니다."
    doc.save()

    response = admin_client.post(
        reverse("admin:knowledge_knowledgedocument_changelist"),
        {"action": "rebuild_index", "_selected_action": [doc.pk]},
        follow=True,
    )

    assert "색인을 다시 만들었습니다" in response.content.decode()
    assert list(KnowledgeChunk.objects.filter(document=doc).values_list("text", flat=True)) == [
        "## 교환\n\n교환 규칙이 바뀌었습니다."
    ]

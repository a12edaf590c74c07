from __future__ import annotations

import json

import pytest

from common.tokenize import tokens
from knowledge.models import FaqEntry, KnowledgeChunk, KnowledgeDocument
from knowledge.services import (
    KnowledgeError,
    faq_list_active,
    index_status,
    knowledge_fixture_load,
    knowledge_index_build,
)

pytestmark = pytest.mark.django_db


def test_fixture_load_creates_faq_and_documents(kiwi, knowledge_dir):
    counts = knowledge_fixture_load(directory=knowledge_dir)

    assert counts["faq_created"] == FaqEntry.objects.count() >= 15
    assert counts["documents_created"] == KnowledgeDocument.objects.count() >= 6
    refund = KnowledgeDocument.objects.get(doc_id="refund-policy")
    assert refund.kind == KnowledgeDocument.Kind.POLICY
    assert refund.title == "반품·환불 정책"
    assert not refund.body.startswith("doc_id")


def test_fixture_load_twice_changes_nothing(knowledge_dir):
    knowledge_fixture_load(directory=knowledge_dir)
    before = dict(KnowledgeDocument.objects.values_list("doc_id", "updated_at"))

    counts = knowledge_fixture_load(directory=knowledge_dir)

    assert counts["faq_created"] == counts["faq_updated"] == 0
    assert counts["documents_created"] == counts["documents_updated"] == 0
    assert dict(KnowledgeDocument.objects.values_list("doc_id", "updated_at")) == before


def test_fixture_load_updates_changed_text_but_keeps_the_staff_on_off_switch(tmp_path):
    (tmp_path / "a.md").write_text("doc_id: a\ntitle: 처음\nkind: 가이드\n\n본문 하나", encoding="utf-8")
    (tmp_path / "faq.json").write_text(json.dumps([{"question": "Q", "answer": "A1"}]), encoding="utf-8")
    knowledge_fixture_load(directory=tmp_path)
    KnowledgeDocument.objects.filter(doc_id="a").update(is_active=False)
    (tmp_path / "a.md").write_text("doc_id: a\ntitle: 바뀜\nkind: NOTICE\n\n본문 둘", encoding="utf-8")
    (tmp_path / "faq.json").write_text(json.dumps([{"question": "Q", "answer": "A2"}]), encoding="utf-8")

    counts = knowledge_fixture_load(directory=tmp_path)

    doc = KnowledgeDocument.objects.get(doc_id="a")
    assert (doc.title, doc.kind, doc.body, doc.is_active) == ("바뀜", "NOTICE", "본문 둘", False)
    assert FaqEntry.objects.get(question="Q").answer == "A2"
    assert counts["documents_updated"] == counts["faq_updated"] == 1


def test_fixture_with_unknown_kind_is_rejected_and_nothing_is_written(tmp_path):
    (tmp_path / "a.md").write_text("doc_id: a\ntitle: T\nkind: MEMO\n\n본문", encoding="utf-8")
    with pytest.raises(KnowledgeError):
        knowledge_fixture_load(directory=tmp_path)
    assert KnowledgeDocument.objects.count() == 0


def test_index_build_chunks_every_active_document_with_title_and_text_tokens(kiwi, knowledge_dir):
    knowledge_fixture_load(directory=knowledge_dir)

    written = knowledge_index_build()

    assert written == KnowledgeChunk.objects.count()
    for doc in KnowledgeDocument.objects.all():
        chunks = list(doc.chunks.order_by("index"))
        assert [c.index for c in chunks] == list(range(len(chunks))) and chunks
        assert all(len(c.text) <= 500 for c in chunks)
        assert all(set(tokens(doc.title)) <= set(c.tokens) for c in chunks)
    lengths = [len(c.text) for c in KnowledgeChunk.objects.all()]
    assert sum(lengths) / len(lengths) >= 200
    refund_tokens = KnowledgeChunk.objects.filter(document__doc_id="refund-policy").values_list("tokens", flat=True)
    assert any("환불" in t for t in refund_tokens)


def test_rebuild_replaces_a_documents_chunks_and_leaves_others(kiwi, knowledge_dir):
    knowledge_fixture_load(directory=knowledge_dir)
    knowledge_index_build()
    other_ids = set(KnowledgeChunk.objects.exclude(document__doc_id="exchange-policy").values_list("id", flat=True))
    doc = KnowledgeDocument.objects.get(doc_id="exchange-policy")
    doc.body = "## 교환\n\n" + "교환은 배송 완료 후 신청합니다. " * 5
    doc.save()

    written = knowledge_index_build(document_ids=["exchange-policy"])

    assert written == 1
    assert list(doc.chunks.values_list("index", flat=True)) == [0]
    assert set(KnowledgeChunk.objects.exclude(document=doc).values_list("id", flat=True)) == other_ids


def test_full_build_drops_chunks_of_inactive_documents(kiwi, knowledge_dir):
    knowledge_fixture_load(directory=knowledge_dir)
    knowledge_index_build()
    KnowledgeDocument.objects.filter(doc_id="privacy-notice").update(is_active=False)

    knowledge_index_build()

    assert not KnowledgeChunk.objects.filter(document__doc_id="privacy-notice").exists()


def test_index_build_with_unknown_id_is_an_error():
    with pytest.raises(KnowledgeError):
        knowledge_index_build(document_ids=["nope"])


def test_index_status_is_built_only_when_every_active_document_is_indexed_after_its_last_edit(kiwi, knowledge_dir):
    assert index_status() == {"documents": 0, "chunks": 0, "built": False}
    knowledge_fixture_load(directory=knowledge_dir)
    assert index_status()["built"] is False

    knowledge_index_build()
    status = index_status()
    assert status["built"] is True
    assert status["documents"] == KnowledgeDocument.objects.count()
    assert status["chunks"] == KnowledgeChunk.objects.count()

    doc = KnowledgeDocument.objects.get(doc_id="shipping-guide")
    doc.body += "\n\n추가 안내."
    doc.save()
    assert index_status()["built"] is False

    knowledge_index_build(document_ids=["shipping-guide"])
    assert index_status()["built"] is True


def test_faq_list_active_skips_inactive_and_respects_order_and_limit():
    FaqEntry.objects.create(question="셋", answer="a", sort_order=30)
    FaqEntry.objects.create(question="하나", answer="a", sort_order=10)
    FaqEntry.objects.create(question="꺼짐", answer="a", sort_order=5, is_active=False)
    FaqEntry.objects.create(question="둘", answer="a", sort_order=20)

    assert [f.question for f in faq_list_active()] == ["하나", "둘", "셋"]
    assert [f.question for f in faq_list_active(limit=2)] == ["하나", "둘"]

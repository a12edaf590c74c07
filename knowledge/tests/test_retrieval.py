"""Search over the real fixture documents, loaded and indexed in each test's transaction."""

from __future__ import annotations

import threading

import pytest

from knowledge.models import KnowledgeDocument
from knowledge.retrieval import Hit, retrieve, validate_citations
from knowledge.services import knowledge_index_build

pytestmark = pytest.mark.usefixtures("knowledge_indexed")


def _top_doc(query: str) -> str:
    hits = retrieve(query)
    assert hits, f"no hits for {query!r}"
    return hits[0].doc_id


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "doc_id"),
    [
        ("환불 언제 돼요", "refund-policy"),
        ("환불은 언제 되나요?", "refund-policy"),
        ("교환 신청 기간", "exchange-policy"),
        ("결제 오류", "payment-error-guide"),
        ("결제가 두 번 됐어요", "payment-error-guide"),
        ("배송지 바꾸고 싶어요", "shipping-guide"),
        ("주소 변경", "shipping-guide"),
        ("비밀번호를 잊어버렸어요", "account-login-guide"),
        ("앱이 자꾸 꺼져요", "app-error-report-guide"),
        ("개인정보 보관 기간", "privacy-notice"),
    ],
)
def test_question_ranks_its_document_first(query, doc_id):
    assert _top_doc(query) == doc_id


@pytest.mark.django_db
def test_address_change_hit_is_the_section_with_the_rule():
    hit = retrieve("배송지 바꾸고 싶어요")[0]
    assert hit.text.startswith("## 배송지 변경")
    assert "결제완료 또는 배송준비" in hit.text


@pytest.mark.django_db
def test_hits_are_sorted_positive_and_at_most_k():
    hits = retrieve("카드 환불 며칠 걸려요", k=3)
    assert 1 <= len(hits) <= 3
    assert all(isinstance(h, Hit) and h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.django_db
def test_query_sharing_no_token_with_any_chunk_returns_nothing():
    assert retrieve("양자역학 블랙홀") == []
    assert retrieve("") == []
    assert retrieve("환불", k=0) == []


@pytest.mark.django_db
def test_only_chunks_sharing_a_token_are_returned_even_when_k_is_large():
    hits = retrieve("텀블러", k=100)
    assert hits
    assert all("텀블러" in h.text or "텀블러" in h.title for h in hits)


@pytest.mark.django_db
def test_fabricated_and_unretrieved_citations_are_dropped_and_retrieved_ones_kept():
    hits = retrieve("환불 언제 돼요")
    assert {h.doc_id for h in hits} == {"refund-policy"}
    retrieved_chunks = {h.chunk_index for h in hits}
    refund = KnowledgeDocument.objects.get(doc_id="refund-policy")
    not_retrieved = next(c.index for c in refund.chunks.order_by("index") if c.index not in retrieved_chunks)
    real = {"doc_id": hits[0].doc_id, "chunk": hits[0].chunk_index}
    fabricated = {"doc_id": "made-up", "chunk": 0}
    real_doc_wrong_chunk = {"doc_id": "refund-policy", "chunk": not_retrieved}

    kept, dropped = validate_citations([real, fabricated, real_doc_wrong_chunk], hits)

    assert kept == [real]
    assert dropped == [fabricated, real_doc_wrong_chunk]


@pytest.mark.django_db
def test_malformed_citations_are_dropped_and_duplicates_kept_once():
    hits = retrieve("교환 신청 기간")
    real = hits[0].citation()
    malformed = [{"doc_id": real["doc_id"], "chunk": str(real["chunk"])}, {"doc_id": real["doc_id"]}, "x", None]

    kept, dropped = validate_citations([real, dict(real), *malformed], hits)

    assert kept == [real]
    assert dropped == malformed


@pytest.mark.django_db
def test_rebuilding_after_an_edit_changes_results():
    assert retrieve("편의점 픽업") == []
    guide = KnowledgeDocument.objects.get(doc_id="shipping-guide")
    guide.body += "\n\n## 편의점 픽업\n\n주문할 때 편의점 픽업을 선택하면 가까운 편의점에서 상품을 받을 수 있습니다."
    guide.save()

    assert retrieve("편의점 픽업") == []  # searchable only after the rebuild
    knowledge_index_build(document_ids=["shipping-guide"])

    hits = retrieve("편의점 픽업")
    assert hits and hits[0].doc_id == "shipping-guide"
    assert "편의점 픽업" in hits[0].text


@pytest.mark.django_db
def test_a_deactivated_document_is_not_searched():
    KnowledgeDocument.objects.filter(doc_id="payment-error-guide").update(is_active=False)
    # .update() skips auto_now; bump the timestamp the way a save from the admin would.
    doc = KnowledgeDocument.objects.get(doc_id="payment-error-guide")
    doc.save()

    assert all(h.doc_id != "payment-error-guide" for h in retrieve("결제 오류", k=10))


@pytest.mark.django_db
def test_cached_search_costs_one_query(django_assert_num_queries):
    retrieve("환불")  # builds the in-process index
    with django_assert_num_queries(1):  # the version-key aggregate only
        retrieve("교환 신청 기간")


@pytest.mark.django_db(transaction=True)
def test_concurrent_searches_agree(knowledge_indexed):
    from knowledge.retrieval import reset_cache

    reset_cache()
    expected = [(h.doc_id, h.chunk_index) for h in retrieve("결제 오류")]
    reset_cache()
    results, errors = [], []

    def worker():
        try:
            results.append([(h.doc_id, h.chunk_index) for h in retrieve("결제 오류")])
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            from django.db import connection

            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert results == [expected] * 6

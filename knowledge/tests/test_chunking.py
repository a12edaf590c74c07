"""Pure text rules: front matter and chunk sizes. No database, no Kiwi."""

from __future__ import annotations

import pytest

from knowledge.chunking import CHUNK_MAX_CHARS, DocumentFormatError, chunk_body, document_parse, markdown_plain


def test_front_matter_lines_are_parsed_and_the_rest_is_body():
    source = document_parse("doc_id: refund-policy\ntitle: 반품·환불 정책\nkind: POLICY\n\n# 제목\n\n본문입니다.")
    assert (source.doc_id, source.title, source.kind) == ("refund-policy", "반품·환불 정책", "POLICY")
    assert source.body == "# 제목\n\n본문입니다."


def test_fenced_front_matter_is_accepted():
    source = document_parse("---\ndoc_id: a\ntitle: T\nkind: 공지\n---\n본문")
    assert (source.doc_id, source.kind, source.body) == ("a", "공지", "본문")


def test_missing_front_matter_key_is_an_error():
    with pytest.raises(DocumentFormatError, match="kind"):
        document_parse("doc_id: a\ntitle: T\n\n본문")


def test_paragraphs_are_packed_into_chunks_no_longer_than_the_maximum():
    paragraph = "가" * 180
    body = "\n\n".join([paragraph] * 7)
    chunks = chunk_body(body)
    assert len(chunks) == 4  # 2+2+2+1 paragraphs; the 180-char tail does not fit with the previous two
    assert all(len(c) <= CHUNK_MAX_CHARS for c in chunks)
    assert "".join(chunks).replace("\n", "") == paragraph * 7


def test_a_long_paragraph_is_split_by_sentences():
    sentence = "환불은 원래 결제 수단으로 돌아갑니다." + "가" * 60 + "."
    chunks = chunk_body(" ".join([sentence] * 12))
    assert len(chunks) > 1
    assert all(len(c) <= CHUNK_MAX_CHARS for c in chunks)


def test_a_chunk_that_starts_inside_a_section_carries_the_section_heading():
    body = "## 환불 시점\n\n" + "\n\n".join(["나" * 200] * 4)
    chunks = chunk_body(body)
    assert len(chunks) >= 2
    assert all(c.startswith("## 환불 시점") for c in chunks)


def test_sections_start_new_chunks_once_the_current_one_is_big_enough():
    body = "## 하나\n\n" + "다" * 250 + "\n\n## 둘\n\n" + "라" * 250
    chunks = chunk_body(body)
    assert [c.split("\n")[0] for c in chunks] == ["## 하나", "## 둘"]


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("## 환불 기준\n\n**단순변심**은 7일 이내", "환불 기준 단순변심은 7일 이내"),
        ("- 상품 하자\n- 오배송\n1. 접수", "상품 하자 오배송 접수"),
        ("> 참고: [배송 안내](https://example.com/ship)를 보세요", "참고: 배송 안내를 보세요"),
        ("`app_open` 이벤트와 file_name 그대로", "app_open 이벤트와 file_name 그대로"),
        ("위\n\n---\n\n아래", "위 아래"),
        ("38,000원 * 2개", "38,000원 * 2개"),
    ],
)
def test_markdown_plain_keeps_the_words_and_drops_the_marks(markdown, plain):
    assert markdown_plain(markdown) == plain

"""Every code the draft pipeline stores has a Korean label, and the JSON a draft keeps reads as words. No DB."""

from __future__ import annotations

import re

import pytest

from diagnostics.labels import diagnosis_display
from diagnostics.schemas import VERDICTS, DiagnosisOutput
from drafts import policy
from drafts.context import context_sources
from drafts.labels import (
    CONTEXT_SOURCE_LABELS,
    HOLD_LABELS,
    SCORE_LABELS,
    citation_views,
    context_report_rows,
    draft_event_change_html,
    stage_cpu_rows,
    stage_errors_html,
)
from drafts.models import Draft, DraftEvent
from drafts.schemas import ConfidenceOutput
from drafts.stages import stage_labels

HANGUL = re.compile(r"[가-힣]")
CODE = re.compile(r"\b(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")


def _visible(html: str) -> str:
    return re.sub(r"<[^>]+>", "", str(html))


def test_every_verdict_has_a_korean_label():
    shown = diagnosis_display({"verdict": "x"}, events={})  # the display's own fallback for a stray value
    assert shown["verdict_label"] == "기타 판정"
    for verdict in VERDICTS:
        label = diagnosis_display({"verdict": verdict}, events={})["verdict_label"]
        assert HANGUL.search(label) and label != "기타 판정", verdict
    assert set(DiagnosisOutput.model_json_schema()["properties"]["verdict"]["enum"]) == set(VERDICTS)


def test_every_stage_score_hold_and_context_source_has_a_korean_label():
    assert set(Draft.STAGES) <= set(stage_labels())
    assert set(ConfidenceOutput.model_fields) - {"hard_blockers"} <= set(SCORE_LABELS)
    assert {policy.HOLD_MONEY_CLAIM, policy.HOLD_UNCHECKED} <= set(HOLD_LABELS)
    assert set(context_sources("C001", 1)) <= set(CONTEXT_SOURCE_LABELS)
    for table in (stage_labels(), SCORE_LABELS, HOLD_LABELS, CONTEXT_SOURCE_LABELS):
        assert all(HANGUL.search(v) or v == "QA" for v in table.values())


def test_a_lowered_verdict_shows_both_labels_and_times_read_local():
    view = diagnosis_display(
        {
            "verdict": "PARTIAL_EVIDENCE",
            "model_verdict": "FAILURE_POINT_IDENTIFIED",
            "observed_facts": [{"fact": "2026-07-27T09:30:44.000+09:00 blank_screen", "event_ids": ["E00099"]}],
            "notes": ["요청 로그 없이 이용 이벤트만 있어 PARTIAL_EVIDENCE로 제한"],
        },
        events={},
    )
    assert (view["verdict_label"], view["model_verdict_label"]) == ("부분 근거", "실패 지점 확인")
    assert _visible(view["facts"][0]["text"]) == "2026년 7월 27일 09:30:44 빈 화면"
    assert view["facts"][0]["events"] == [{"id": "E00099", "summary": "기록에 없는 이벤트", "url": ""}]
    assert _visible(view["notes"][0]) == "요청 로그 없이 이용 이벤트만 있어 부분 근거로 제한"


def test_citations_read_by_document_title_with_markdown_stripped():
    views = citation_views(
        [{"doc_id": "refund-policy", "chunk": 3, "title": "환불 정책", "text": "## 환불 기준\n- **7일** 이내"}]
    )
    assert views == [
        {"title": "환불 정책", "part": "4번째 단락", "ref": "refund-policy #3", "text": "환불 기준 7일 이내"}
    ]
    dropped = citation_views([{"doc_id": "gone", "chunk": 0}], titles={})
    assert dropped[0]["title"] == "제목을 찾을 수 없는 문서"


def test_context_report_reads_as_fields():
    rows = context_report_rows(
        {"orders": "ok", "payments": "failed:OperationalError", "profile": "late", "elapsed_ms": 1234}
    )
    assert [(_visible(k), v) for k, v in rows] == [
        ("주문", "조회됨"),
        ("결제", "실패 (OperationalError)"),
        ("고객 정보", "시간 초과로 제외"),
        ("걸린 시간", "1,234ms"),
    ]


def test_stage_cpu_reads_by_the_stages_labels_and_the_work_beside_them_with_a_total():
    rows = stage_cpu_rows({"retrieval": 0.25, "qa": 1234.5, "context": 4.0, "draft": 12.34})  # as the writes came
    assert [(_visible(k), v) for k, v in rows] == [
        ("초안", "12.3ms"),
        ("QA", "1,234.5ms"),
        ("선조회", "4.0ms"),
        ("지식 검색", "0.2ms"),
        ("합계", "1,251.1ms"),
    ]
    assert stage_cpu_rows({}) == []


def test_stage_errors_name_the_stage():
    assert _visible(stage_errors_html({"qa": "APITimeoutError"})) == "QA (APITimeoutError)"


@pytest.mark.parametrize(
    ("payload", "shown"),
    [
        ({"after": "PREPARING", "ticket_id": 7, "message_id": 10}, "- → 생성 중 · 티켓 T00007 · 메시지 번호 10"),
        (
            {"before": "GENERATED", "after": "APPLIED", "applied": "EDITED", "edit_ratio": 0.2134, "tags": ["환불"]},
            "생성됨 → 적용됨 · 적용 방식 수정 후 발송 · 편집 비율 21% · 태그 환불",
        ),
        (
            {"before": "GENERATED", "after": "SUPERSEDED", "reason": "newer_draft"},
            "생성됨 → 대체됨 · 사유 더 새 초안이 생김",
        ),
        (
            {"holds": ["money_claim", "unchecked"], "claims": 1},
            "보류 사유 승인되지 않은 환불·취소 약속, QA·신뢰도 검사 미완료 · 근거 없는 금전 문장 1",
        ),
        (
            {"before": "PREPARING", "after": "FAILED", "attempt": 2, "errors": {"draft": "APITimeoutError"}},
            "생성 중 → 생성 실패 · 실행 회차 2 · 단계별 오류 초안 (APITimeoutError)",
        ),
        ({"reason": "own_reply", "edit_ratio": 0.2123, "tags": []}, "사유 상담원이 직접 답변 · 편집 비율 21%"),
        ({"brand_new_key": "x"}, "기타 x"),
    ],
)
def test_draft_history_reads_as_words_never_key_equals_code(payload, shown):
    text = _visible(draft_event_change_html(DraftEvent(payload=payload)))
    assert text == shown
    assert not CODE.search(text) and "=" not in text

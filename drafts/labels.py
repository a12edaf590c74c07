"""What operators read for the draft pipeline's codes and the JSON a draft stores. Pure data and pure
formatting (no ORM): the review panel, the draft record and its history use these tables. The stages' words are
their declarations' (`drafts.stages.stage_labels`).

An unknown code reads as a Korean fallback, the raw code only in a hover title.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from actions.claims import CODE as MONEY_CLAIM_CODE
from common.display import code_html, payload_line
from drafts import policy
from drafts.models import Draft, DraftEvent
from drafts.stages import CONTEXT_WORK, RETRIEVAL_WORK, stage_labels
from knowledge.chunking import markdown_plain

# The confidence evaluation's items (Draft.confidence keys).
SCORE_LABELS: dict[str, str] = {
    "groundedness": "근거성",
    "completeness": "완결성",
    "safety": "안전성",
    "uncertainty_handling": "불확실성 처리",
}
# Which text a money-claim blocker was found in (claim_blockers[].field).
CLAIM_FIELD_LABELS: dict[str, str] = {
    "body": "빠른 초안",
    "corrected_body": "QA 보정 답변",
    "final_body": "발송한 답변",
}
# Codes of blockers found by code (claim_blockers[].code) and of the holds an operator overrode.
CLAIM_CODE_LABELS: dict[str, str] = {MONEY_CLAIM_CODE: "환불·취소 약속"}
HOLD_LABELS: dict[str, str] = {
    policy.HOLD_MONEY_CLAIM: "승인되지 않은 환불·취소 약속",
    policy.HOLD_UNCHECKED: "QA·신뢰도 검사 미완료",
}
# The sources read before drafting (Draft.context_report keys; drafts.context.context_sources).
CONTEXT_SOURCE_LABELS: dict[str, str] = {
    "profile": "고객 정보",
    "orders": "주문",
    "action_records": "처리 기록",
    "past_tickets": "과거 문의",
    "payments": "결제",
    "shipping_events": "배송 이력",
}
CONTEXT_OUTCOME_LABELS: dict[str, str] = {"ok": "조회됨", "late": "시간 초과로 제외"}
# The run's work beside the stages (Draft.stage_cpu_ms keys besides the stages').
RUN_WORK_LABELS: dict[str, str] = {CONTEXT_WORK: "선조회", RETRIEVAL_WORK: "지식 검색"}
UNKNOWN = "기타"


def holds_html(holds: list[str]) -> SafeString:
    """The holds an operator overrode, by their labels."""
    return format_html_join(", ", "{}", ((code_html(str(h), HOLD_LABELS),) for h in holds))


def stage_errors_html(errors: Mapping[str, object]) -> SafeString:
    """{"qa": "APITimeoutError"} → "QA (APITimeoutError)": stages by name, the error class as recorded."""
    return format_html_join(
        ", ", "{} ({})", ((code_html(stage, stage_labels(), "기타 단계"), error) for stage, error in errors.items())
    )


def context_outcome(value: object) -> str:
    """ok / late / failed:<error class> as people read it."""
    text = str(value)
    if text.startswith("failed:"):
        return f"실패 ({text.removeprefix('failed:')})"
    return CONTEXT_OUTCOME_LABELS.get(text, UNKNOWN)


def context_report_rows(report: Mapping[str, object]) -> list[tuple[SafeString | str, SafeString | str]]:
    rows: list[tuple[SafeString | str, SafeString | str]] = [
        (code_html(name, CONTEXT_SOURCE_LABELS, "기타 자료"), context_outcome(outcome))
        for name, outcome in report.items()
        if name != "elapsed_ms"
    ]
    if "elapsed_ms" in report:
        rows.append(("걸린 시간", f"{report['elapsed_ms']:,}ms"))
    return rows


def stage_cpu_rows(cpu_ms: Mapping[str, object]) -> list[tuple[SafeString | str, str]]:
    """{"context": 4.1, "draft": 12.3} → (초안, 12.3ms), (선조회, 4.1ms): each stage's and the prefetch's and
    retrieval's CPU by its label, in the order people read the stages in, then the total."""
    labels = {**stage_labels(), **RUN_WORK_LABELS}
    order = [*(name for name in labels if name in cpu_ms), *(name for name in cpu_ms if name not in labels)]
    rows: list[tuple[SafeString | str, str]] = [
        (code_html(name, labels, "기타 단계"), f"{float(cpu_ms[name]):,.1f}ms") for name in order
    ]
    if rows:
        rows.append(("합계", f"{sum(float(ms) for ms in cpu_ms.values()):,.1f}ms"))
    return rows


def draft_event_change_html(event: DraftEvent) -> str:
    """One Korean line for a draft's audit row, worded as every history is (`common.display.payload_line`):
    status labels before → after, then each payload field by its Korean name. Never `key=value`."""
    return payload_line(
        event.payload or {},
        status_labels=dict(Draft.Status.choices),
        values={"applied": dict(Draft.Applied.choices), "holds": HOLD_LABELS, "errors": stage_labels()},
    )


def citation_views(citations: list[dict], *, titles: Mapping[str, str] | None = None) -> list[dict]:
    """Citations as people read them: the document's title (the slug and chunk number only in `ref`, for a
    hover title), the chunk's text without markdown marks. `citations`: `selectors.citations_with_text`, or
    stored citations with `titles` from `selectors.document_titles`."""
    views = []
    for citation in citations:
        if not isinstance(citation, Mapping):
            citation = {"doc_id": str(citation)}
        doc_id = str(citation.get("doc_id") or "")
        chunk = citation.get("chunk")
        title = citation.get("title") or (titles or {}).get(doc_id) or "제목을 찾을 수 없는 문서"
        views.append(
            {
                "title": title,
                "part": f"{chunk + 1}번째 단락" if isinstance(chunk, int) else "",
                "ref": f"{doc_id} #{chunk}" if chunk is not None else doc_id,
                "text": markdown_plain(citation.get("text") or ""),
            }
        )
    return views

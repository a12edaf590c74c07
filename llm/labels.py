"""What operators read for the callers' purposes (LLMCall.purpose). Pure data."""

from __future__ import annotations

# What each caller asks a model for (LLMCall.purpose is written by the callers: chat, drafts, evals). A purpose
# this table does not know reads as "기타 용도", the raw value kept in the hover title.
PURPOSE_LABELS: dict[str, str] = {
    "chat": "채팅 상담",
    "draft": "답변 초안",
    "qa": "초안 QA",
    "confidence": "신뢰도 평가",
    "tags": "태그 추천",
    "diagnosis": "오류 진단",
    "eval_user": "평가용 가상 고객",
    "eval_judge": "평가 채점",
}
UNKNOWN_PURPOSE = "기타 용도"


def purpose_label(purpose: str) -> str:
    return PURPOSE_LABELS.get(purpose, UNKNOWN_PURPOSE)

"""What operators read for the callers' purposes (LLMCall.purpose). Pure data, filled in by the callers."""

from __future__ import annotations

# What each caller asks a model for (LLMCall.purpose is written by the callers: chat, drafts, evals). The draft
# pipeline registers one purpose per stage at start-up (drafts.stages, DraftsConfig.ready()): the gateway knows no
# stage. A purpose this table does not know reads as "기타 용도", the raw value kept in the hover title.
PURPOSE_LABELS: dict[str, str] = {
    "chat": "채팅 상담",
    "eval_user": "평가용 가상 고객",
    "eval_judge": "평가 채점",
}
UNKNOWN_PURPOSE = "기타 용도"


def purpose_label_register(purpose: str, label: str) -> None:
    """Called from the calling app's ready() (or a test); registering again replaces."""
    PURPOSE_LABELS[purpose] = label


def purpose_label_unregister(purpose: str) -> None:
    PURPOSE_LABELS.pop(purpose, None)


def purpose_label(purpose: str) -> str:
    return PURPOSE_LABELS.get(purpose, UNKNOWN_PURPOSE)

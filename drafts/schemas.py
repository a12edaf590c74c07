"""Structured outputs of the draft pipeline. Validated by pydantic; code checks what they claim."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tickets.services import BODY_MAX


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Citation(_Out):
    doc_id: str = Field(max_length=80)
    chunk: int = Field(ge=0)


class DraftOutput(_Out):
    body: str = Field(min_length=1, max_length=BODY_MAX)
    citations: list[Citation] = Field(default_factory=list, max_length=10)


class QAOutput(_Out):
    corrected_body: str = Field(min_length=1, max_length=BODY_MAX)
    changes: list[str] = Field(default_factory=list, max_length=10)
    citations: list[Citation] = Field(default_factory=list, max_length=10)


class Score(_Out):
    score: float = Field(ge=0, le=1)
    reason: str = Field(max_length=500)


class ConfidenceOutput(_Out):
    groundedness: Score
    completeness: Score
    safety: Score
    uncertainty_handling: Score
    hard_blockers: list[str] = Field(default_factory=list, max_length=10)


class TagsOutput(_Out):
    tags: list[str] = Field(default_factory=list, max_length=8)

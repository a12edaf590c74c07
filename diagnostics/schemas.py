"""What the diagnosis model must return. Validated here; `policy.enforce` then decides what survives."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# The verdict set, defined once (code → the label operators read); everything else derives from it.
VERDICT_LABELS: dict[str, str] = {
    "FAILURE_POINT_IDENTIFIED": "실패 지점 확인",
    "PARTIAL_EVIDENCE": "부분 근거",
    "INSUFFICIENT": "근거 부족",
}
VERDICTS: tuple[str, ...] = tuple(VERDICT_LABELS)
Verdict = Literal[VERDICTS]  # type: ignore[valid-type]
EventId = Annotated[str, Field(min_length=1, max_length=32)]
Check = Annotated[str, Field(min_length=1, max_length=300)]


class ObservedFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fact: str = Field(description="이벤트에 기록된 그대로의 관측 사실 (추정 금지)", min_length=1, max_length=300)
    event_ids: list[EventId] = Field(
        description="이 사실의 근거가 된 이벤트 ID (예: E00012). 도구 결과에 있는 ID만",
        max_length=20,
    )


class DiagnosisOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Verdict = Field(description=" | ".join(VERDICTS))
    observed_facts: list[ObservedFact] = Field(description="관측 사실과 근거 이벤트", max_length=20)
    interpretation: str = Field(description="관측 사실에 대한 AI 해석 (추정임을 밝힐 것)", max_length=1500)
    checks: list[Check] = Field(description="운영자가 추가로 확인할 항목", max_length=10)


def diagnosis_json_schema() -> dict:
    return DiagnosisOutput.model_json_schema()

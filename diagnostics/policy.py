"""What a diagnosis may claim, given the events gathered for the inquiry window. Pure: no ORM, no settings.

The model proposes a verdict and cites event ids; code decides what survives:

- a fact must cite at least one event, and every cited event must be in the inquiry window's context
  (older events — a similar error last week — are not evidence for this inquiry);
- FAILURE_POINT_IDENTIFIED needs a cited request log, and a cited request log or trace that recorded a
  server-side error (5xx or an error code); usage events alone show what the customer did, not what failed;
- with no cited evidence left, the verdict is INSUFFICIENT;
- every string the model wrote is redacted.

A verdict is only ever lowered here, never raised.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from common.numbering import format_number, parse_number
from common.redaction import find_sensitive, redact
from diagnostics.schemas import VERDICTS, DiagnosisOutput, ObservedFact

REQUEST_LOG = "REQUEST_LOG"
TRACE = "TRACE"
USAGE_EVENT = "USAGE_EVENT"

FAILURE_POINT_IDENTIFIED, PARTIAL_EVIDENCE, INSUFFICIENT = VERDICTS

EVENT_PREFIX = "E"

NOTE_USAGE_ONLY_CAP = "요청 로그 없이 이용 이벤트만 있어 PARTIAL_EVIDENCE로 제한"


def event_is_error(*, status_code: int | None, error_code: str) -> bool:
    """A server-side failure: 5xx or an error code. A 4xx alone is the request being refused, not a fault."""
    return bool(error_code) or (status_code is not None and status_code >= 500)


def event_id_normalize(value: str) -> str | None:
    """'e12', 'E12' and 'E00012' are the same event; anything else is not an event id."""
    number = parse_number(EVENT_PREFIX, value)
    return format_number(EVENT_PREFIX, number) if number else None


@dataclass
class EnforcedDiagnosis:
    verdict: str
    observed_facts: list[ObservedFact]
    interpretation: str
    checks: list[str]
    notes: list[str] = field(default_factory=list)
    model_verdict: str = ""

    def as_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "model_verdict": self.model_verdict,
            "observed_facts": [f.model_dump() for f in self.observed_facts],
            "interpretation": self.interpretation,
            "checks": list(self.checks),
            "notes": list(self.notes),
        }


def enforce(
    output: DiagnosisOutput,
    *,
    context_event_ids_by_kind: Mapping[str, Collection[str]],
    error_event_ids: Collection[str] = frozenset(),
) -> EnforcedDiagnosis:
    """`context_event_ids_by_kind`: the ids the tool returned for the window, by ServiceEvent kind.
    `error_event_ids`: those of them that recorded a server-side error (see `event_is_error`).
    """
    kind_of: dict[str, str] = {}
    for kind, ids in context_event_ids_by_kind.items():
        for event_id in ids:
            normalized = event_id_normalize(event_id)
            if normalized:
                kind_of[normalized] = kind
    errors = {n for n in (event_id_normalize(e) for e in error_event_ids) if n}
    notes: list[str] = []

    facts: list[ObservedFact] = []
    uncited = 0
    outside: list[str] = []
    for fact in output.observed_facts:
        cited = list(dict.fromkeys(event_id_normalize(e) or e.strip() for e in fact.event_ids if e.strip()))
        unknown = [e for e in cited if e not in kind_of]
        if not cited:
            uncited += 1
        elif unknown:
            outside.extend(e for e in unknown if e not in outside)
        else:
            facts.append(ObservedFact(fact=redact(fact.fact), event_ids=cited))
    dropped_outside = len(output.observed_facts) - len(facts) - uncited
    if dropped_outside:
        shown = ", ".join(redact(e) for e in outside[:5])
        notes.append(
            f"문의 시간대 밖이거나 조회 결과에 없는 이벤트({shown})를 인용한 관측 사실 {dropped_outside}건 제외"
            " — 과거 이벤트는 이번 문의의 근거가 아님"
        )
    if uncited:
        notes.append(f"근거 이벤트를 인용하지 않은 관측 사실 {uncited}건 제외")

    cited_kinds = {kind_of[e] for f in facts for e in f.event_ids}
    cited_error_evidence = any(e in errors and kind_of[e] in (REQUEST_LOG, TRACE) for f in facts for e in f.event_ids)
    window_has_request_log = bool(context_event_ids_by_kind.get(REQUEST_LOG))

    verdict: str = output.verdict
    if not facts:
        if verdict != INSUFFICIENT:
            notes.append(f"근거가 인용된 관측 사실이 없어 {verdict}를 INSUFFICIENT로 변경")
        verdict = INSUFFICIENT
    elif verdict == FAILURE_POINT_IDENTIFIED:
        if REQUEST_LOG not in cited_kinds:
            verdict = PARTIAL_EVIDENCE
            if window_has_request_log:
                notes.append("요청 로그를 근거로 인용하지 않아 PARTIAL_EVIDENCE로 제한")
            elif cited_kinds <= {USAGE_EVENT}:
                notes.append(NOTE_USAGE_ONLY_CAP)
            else:
                notes.append("문의 시간대에 요청 처리 로그가 없어 PARTIAL_EVIDENCE로 제한")
        elif not cited_error_evidence:
            verdict = PARTIAL_EVIDENCE
            notes.append("오류(5xx 또는 오류 코드)가 기록된 요청 로그·트레이스를 인용하지 않아 PARTIAL_EVIDENCE로 제한")

    written = [f.fact for f in output.observed_facts] + [output.interpretation, *output.checks]
    leaked = sorted({name for text in written for name in find_sensitive(text)})
    if leaked:
        notes.append(f"모델 출력에서 민감정보를 가림: {', '.join(leaked)}")

    return EnforcedDiagnosis(
        verdict=verdict,
        observed_facts=facts,
        interpretation=redact(output.interpretation),
        checks=[c for c in (redact(c).strip() for c in output.checks) if c],
        notes=notes,
        model_verdict=output.verdict,
    )

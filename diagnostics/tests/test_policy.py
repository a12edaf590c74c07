"""Pure rules: no database."""

import pytest

from diagnostics.policy import (
    FAILURE_POINT_IDENTIFIED,
    INSUFFICIENT,
    NOTE_USAGE_ONLY_CAP,
    PARTIAL_EVIDENCE,
    enforce,
    event_id_normalize,
    event_is_error,
)
from diagnostics.schemas import DiagnosisOutput

# A C005-like window: E10 request log 502, E11 trace with error, E12 healthy trace span, E5/E8 usage events.
FULL = {"REQUEST_LOG": {"E00009", "E00010"}, "TRACE": {"E00011", "E00012"}, "USAGE_EVENT": {"E00005", "E00008"}}
FULL_ERRORS = {"E00010", "E00011"}
# A C007-like window: usage events only.
USAGE_ONLY = {"REQUEST_LOG": set(), "TRACE": set(), "USAGE_EVENT": {"E00021", "E00022", "E00023"}}
EMPTY = {"REQUEST_LOG": set(), "TRACE": set(), "USAGE_EVENT": set()}


def _output(verdict, facts, interpretation="해석", checks=("PG사 장애 공지 확인",)):
    return DiagnosisOutput(
        verdict=verdict,
        observed_facts=[{"fact": text, "event_ids": ids} for text, ids in facts],
        interpretation=interpretation,
        checks=list(checks),
    )


@pytest.mark.parametrize(
    ("status_code", "error_code", "expected"),
    [
        (502, "", True),
        (500, "", True),
        (200, "PG_TIMEOUT", True),
        (401, "", False),
        (200, "", False),
        (None, "", False),
    ],
)
def test_event_is_error_means_5xx_or_error_code(status_code, error_code, expected):
    assert event_is_error(status_code=status_code, error_code=error_code) is expected


@pytest.mark.parametrize(
    ("raw", "expected"), [("E00012", "E00012"), ("e12", "E00012"), (" E12 ", "E00012"), ("X12", None), ("E0", None)]
)
def test_event_id_normalize(raw, expected):
    assert event_id_normalize(raw) == expected


# (case, context, errors, model verdict, cited facts, expected verdict, expected note fragment or None)
VERDICT_CASES = [
    (
        "failure point kept with cited 502 request log and error trace",
        FULL,
        FULL_ERRORS,
        FAILURE_POINT_IDENTIFIED,
        [("POST /api/payments 502 PG_TIMEOUT", ["E00010"]), ("PG 호출 스팬 30초 타임아웃", ["E00011"])],
        FAILURE_POINT_IDENTIFIED,
        None,
    ),
    (
        "partial kept when the model is cautious",
        FULL,
        FULL_ERRORS,
        PARTIAL_EVIDENCE,
        [("결제 요청 502", ["E00010"])],
        PARTIAL_EVIDENCE,
        None,
    ),
    (
        "usage-only window caps failure point to partial",
        USAGE_ONLY,
        set(),
        FAILURE_POINT_IDENTIFIED,
        [("주문내역 화면 진입 후 빈 화면", ["E00021", "E00022"])],
        PARTIAL_EVIDENCE,
        NOTE_USAGE_ONLY_CAP,
    ),
    (
        "failure point without a cited request log is capped even when one exists",
        FULL,
        FULL_ERRORS,
        FAILURE_POINT_IDENTIFIED,
        [("PG 스팬 오류", ["E00011"])],
        PARTIAL_EVIDENCE,
        "요청 로그를 근거로 인용하지 않아",
    ),
    (
        "failure point citing only a healthy request log is capped",
        FULL,
        FULL_ERRORS,
        FAILURE_POINT_IDENTIFIED,
        [("체크아웃 200", ["E00009"]), ("DB 스팬 11ms", ["E00012"])],
        PARTIAL_EVIDENCE,
        "오류(5xx 또는 오류 코드)",
    ),
    (
        "failure point with request log but error evidence absent from the error set",
        FULL,
        set(),
        FAILURE_POINT_IDENTIFIED,
        [("결제 요청 502", ["E00010"])],
        PARTIAL_EVIDENCE,
        "오류(5xx 또는 오류 코드)",
    ),
    (
        "empty window is insufficient whatever the model says",
        EMPTY,
        set(),
        FAILURE_POINT_IDENTIFIED,
        [("9일 전 로그인 401", ["E00040"])],
        INSUFFICIENT,
        "INSUFFICIENT로 변경",
    ),
    (
        "no facts at all is insufficient",
        FULL,
        FULL_ERRORS,
        PARTIAL_EVIDENCE,
        [],
        INSUFFICIENT,
        "INSUFFICIENT로 변경",
    ),
    (
        "model's insufficient is never raised",
        FULL,
        FULL_ERRORS,
        INSUFFICIENT,
        [("결제 요청 502", ["E00010"])],
        INSUFFICIENT,
        None,
    ),
]


@pytest.mark.parametrize(
    ("context", "errors", "verdict", "facts", "expected", "note"),
    [c[1:] for c in VERDICT_CASES],
    ids=[c[0] for c in VERDICT_CASES],
)
def test_enforce_verdict(context, errors, verdict, facts, expected, note):
    result = enforce(_output(verdict, facts), context_event_ids_by_kind=context, error_event_ids=errors)
    assert result.verdict == expected
    assert result.model_verdict == verdict
    if note is None:
        assert result.notes == []
    else:
        assert any(note in n for n in result.notes), result.notes


def test_enforce_usage_only_cap_note_is_exact():
    result = enforce(
        _output(FAILURE_POINT_IDENTIFIED, [("빈 화면 이벤트", ["E00022"])]),
        context_event_ids_by_kind=USAGE_ONLY,
    )
    assert result.verdict == PARTIAL_EVIDENCE
    assert NOTE_USAGE_ONLY_CAP in result.notes


def test_enforce_drops_facts_citing_events_outside_the_window():
    output = _output(
        FAILURE_POINT_IDENTIFIED,
        [
            ("지난주에도 같은 PG_TIMEOUT 발생", ["E00001"]),  # the 2026-07-19 event: not in this window
            ("이번 결제 요청 502와 과거 오류", ["E00010", "E00001"]),  # mixes in the past event: dropped whole
            ("이번 결제 요청 502 PG_TIMEOUT", ["E00010"]),
        ],
    )
    result = enforce(output, context_event_ids_by_kind=FULL, error_event_ids=FULL_ERRORS)
    assert [f.fact for f in result.observed_facts] == ["이번 결제 요청 502 PG_TIMEOUT"]
    assert result.verdict == FAILURE_POINT_IDENTIFIED
    assert any("E00001" in n and "2건 제외" in n and "근거가 아님" in n for n in result.notes), result.notes


def test_enforce_past_error_alone_leaves_insufficient():
    output = _output(FAILURE_POINT_IDENTIFIED, [("9일 전 로그인 401", ["E00040"])])
    result = enforce(output, context_event_ids_by_kind=EMPTY)
    assert result.verdict == INSUFFICIENT
    assert result.observed_facts == []


def test_enforce_drops_facts_without_citations():
    output = _output(PARTIAL_EVIDENCE, [("고객이 오류를 겪었다고 함", []), ("결제 요청 502", ["E00010"])])
    result = enforce(output, context_event_ids_by_kind=FULL, error_event_ids=FULL_ERRORS)
    assert [f.fact for f in result.observed_facts] == ["결제 요청 502"]
    assert "근거 이벤트를 인용하지 않은 관측 사실 1건 제외" in result.notes


def test_enforce_normalizes_and_dedupes_cited_ids():
    output = _output(FAILURE_POINT_IDENTIFIED, [("결제 요청 502", ["e10", "E00010", "E11"])])
    result = enforce(output, context_event_ids_by_kind=FULL, error_event_ids=FULL_ERRORS)
    assert result.observed_facts[0].event_ids == ["E00010", "E00011"]
    assert result.verdict == FAILURE_POINT_IDENTIFIED


def test_enforce_redacts_every_string_the_model_wrote():
    output = _output(
        FAILURE_POINT_IDENTIFIED,
        [("카드 4111-1111-1111-1111 결제가 http://pg-gateway.internal:8080/v1/charge 에서 502", ["E00010"])],
        interpretation="고객 doyoon.jung@example.com 010-6645-1005 의 Bearer abcdefgh12345 요청이 PG 타임아웃으로 추정",
        checks=['로그 원문 확인: File "/srv/pg.py", line 3, in charge', "password=hunter2 로 재현"],
    )
    result = enforce(output, context_event_ids_by_kind=FULL, error_event_ids=FULL_ERRORS)
    texts = [f.fact for f in result.observed_facts] + [result.interpretation, *result.checks]
    joined = "\n".join(texts)
    for raw in ("4111", "pg-gateway", "doyoon", "6645", "abcdefgh12345", "pg.py", "hunter2"):
        assert raw not in joined
    assert "[카드번호]" in joined and "[내부URL]" in joined and "[이메일]" in joined
    assert any(n.startswith("모델 출력에서 민감정보를 가림") for n in result.notes)
    assert result.verdict == FAILURE_POINT_IDENTIFIED


def test_enforced_diagnosis_as_dict_is_json_ready():
    import json

    result = enforce(
        _output(FAILURE_POINT_IDENTIFIED, [("결제 요청 502", ["E00010"])]),
        context_event_ids_by_kind=FULL,
        error_event_ids=FULL_ERRORS,
    )
    data = json.loads(json.dumps(result.as_dict(), ensure_ascii=False))
    assert data["verdict"] == FAILURE_POINT_IDENTIFIED
    assert data["observed_facts"] == [{"fact": "결제 요청 502", "event_ids": ["E00010"]}]


@pytest.mark.parametrize(
    "payload",
    [
        {"verdict": "CONFIRMED", "observed_facts": [], "interpretation": "", "checks": []},
        {"verdict": "INSUFFICIENT", "observed_facts": [], "interpretation": "x" * 1501, "checks": []},
        {"verdict": "INSUFFICIENT", "observed_facts": [], "interpretation": "", "checks": [], "auto_send": True},
        {
            "verdict": "INSUFFICIENT",
            "observed_facts": [{"fact": "", "event_ids": []}],
            "interpretation": "",
            "checks": [],
        },
    ],
    ids=["unknown verdict", "interpretation too long", "extra field", "empty fact"],
)
def test_schema_rejects_malformed_model_output(payload):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        DiagnosisOutput.model_validate(payload)

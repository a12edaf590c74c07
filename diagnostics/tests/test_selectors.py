import json
from datetime import datetime, timedelta

import pytest

from common.redaction import find_sensitive
from diagnostics.models import ServiceEvent
from diagnostics.policy import FAILURE_POINT_IDENTIFIED, INSUFFICIENT, PARTIAL_EVIDENCE, enforce
from diagnostics.schemas import DiagnosisOutput
from diagnostics.selectors import (
    diagnostic_context_gather,
)
from diagnostics.tests.conftest import C005_INQUIRY, C007_INQUIRY, C008_INQUIRY, SEOUL
from orders.tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db


def _names(events):
    return [e["name"] for e in events]


def test_c005_window_has_request_logs_traces_and_usage(service_events):
    ctx = diagnostic_context_gather(customer_id="C005", inquiry_at=C005_INQUIRY)
    assert ctx.counts == {"REQUEST_LOG": 3, "TRACE": 4, "USAGE_EVENT": 7}
    assert [(e["name"], e["status_code"], e["error_code"]) for e in ctx.request_logs] == [
        ("/api/checkout", 200, ""),
        ("/api/payments", 502, "PG_TIMEOUT"),
        ("/api/payments", 502, "PG_TIMEOUT"),
    ]
    assert {e["span_name"] for e in ctx.traces if e["is_error"]} == {
        "PaymentService.authorize",
        "HTTP POST pg-gateway /v1/charge",
    }
    assert "checkout_click" in _names(ctx.usage_events)
    # The 2026-07-19 PG_TIMEOUT and the 16:42 success are outside the window.
    times = [e["occurred_at"] for e in ctx.events]
    assert times == sorted(times)
    assert min(times) >= "2026-07-26T12:10" and max(times) <= "2026-07-26T14:20"
    assert ctx.window_start == C005_INQUIRY - timedelta(hours=2)
    assert ctx.window_end == C005_INQUIRY + timedelta(minutes=10)
    assert len(ctx.error_event_ids()) == 5  # two 502 logs, three error spans


def test_c005_context_is_redacted(service_events):
    result = diagnostic_context_gather(customer_id="C005", inquiry_at=C005_INQUIRY).as_prompt_context()
    text = json.dumps(result, ensure_ascii=False)
    assert find_sensitive(text) == []
    for raw in ("4111", "eyJhbGci", "pg-gateway.internal", "PgClient.java", "doyoon.jung", "010-6645", "tok_live"):
        assert raw not in text
    assert "[카드번호]" in text and "[스택트레이스 생략]" in text and "[내부URL]" in text


def test_c007_window_has_only_usage_events(service_events):
    ctx = diagnostic_context_gather(customer_id="C007", inquiry_at=C007_INQUIRY)
    assert ctx.counts == {"REQUEST_LOG": 0, "TRACE": 0, "USAGE_EVENT": 7}
    assert {"app_open", "order_history_view", "blank_screen"} <= set(_names(ctx.usage_events))


def test_c008_window_is_empty_and_the_old_401_is_excluded(service_events):
    ctx = diagnostic_context_gather(customer_id="C008", inquiry_at=C008_INQUIRY)
    assert ctx.counts == {"REQUEST_LOG": 0, "TRACE": 0, "USAGE_EVENT": 0}
    assert ctx.events == []
    assert ServiceEvent.objects.filter(customer_id="C008", status_code=401).exists()  # it is there, just too old


def test_window_bounds_are_inclusive_and_other_customers_excluded(event_factory, customer):
    inquiry = datetime(2026, 7, 27, 12, 0, tzinfo=SEOUL)
    inside = [
        event_factory(occurred_at=inquiry - timedelta(hours=2)),
        event_factory(occurred_at=inquiry + timedelta(minutes=10)),
    ]
    event_factory(occurred_at=inquiry - timedelta(hours=2, seconds=1))
    event_factory(occurred_at=inquiry + timedelta(minutes=10, seconds=1))
    event_factory(occurred_at=inquiry, customer_id=CustomerFactory().customer_id)
    event_factory(occurred_at=inquiry, customer_id=None)
    ctx = diagnostic_context_gather(customer_id=customer.customer_id, inquiry_at=inquiry)
    assert [e["event_id"] for e in ctx.events] == [e.event_id for e in inside]


def test_limit_keeps_the_events_nearest_the_inquiry_in_one_query(event_factory, customer, django_assert_num_queries):
    inquiry = datetime(2026, 7, 27, 12, 0, tzinfo=SEOUL)
    made = [event_factory(occurred_at=inquiry - timedelta(minutes=m)) for m in range(10, 0, -1)]
    with django_assert_num_queries(1):
        ctx = diagnostic_context_gather(customer_id=customer.customer_id, inquiry_at=inquiry, limit=3)
    assert ctx.truncated is True
    assert [e["event_id"] for e in ctx.events] == [e.event_id for e in made[-3:]]


def test_gather_rejects_naive_inquiry_time(db):
    with pytest.raises(ValueError):
        diagnostic_context_gather(customer_id="C001", inquiry_at=datetime(2026, 7, 27, 12, 0))


def test_context_is_the_given_customers_and_json_ready(service_events):
    result = diagnostic_context_gather(customer_id="C007", inquiry_at=C007_INQUIRY).as_prompt_context()
    assert result["customer_id"] == "C007"
    assert result["counts"] == {"REQUEST_LOG": 0, "TRACE": 0, "USAGE_EVENT": 7}
    assert result["window"] == {"start": "2026-07-27T07:40:00+09:00", "end": "2026-07-27T09:50:00+09:00"}
    json.dumps(result)  # JSON-ready


def _diagnose(customer_id, inquiry_at, verdict, fact_ids):
    """What the stored stories give when a model claims `verdict` citing `fact_ids(context)`."""
    ctx = diagnostic_context_gather(customer_id=customer_id, inquiry_at=inquiry_at)
    ids = fact_ids(ctx)
    output = DiagnosisOutput(
        verdict=verdict,
        observed_facts=[{"fact": "관측", "event_ids": ids}] if ids else [],
        interpretation="추정",
        checks=["확인"],
    )
    return enforce(output, context_event_ids_by_kind=ctx.event_ids_by_kind(), error_event_ids=ctx.error_event_ids())


def test_story_c005_reaches_failure_point_identified(service_events):
    result = _diagnose("C005", C005_INQUIRY, FAILURE_POINT_IDENTIFIED, lambda ctx: sorted(ctx.error_event_ids()))
    assert result.verdict == FAILURE_POINT_IDENTIFIED


def test_story_c007_overconfident_model_is_capped_to_partial_evidence(service_events):
    result = _diagnose(
        "C007", C007_INQUIRY, FAILURE_POINT_IDENTIFIED, lambda ctx: [e["event_id"] for e in ctx.usage_events]
    )
    assert result.verdict == PARTIAL_EVIDENCE
    assert "요청 로그 없이 이용 이벤트만 있어 PARTIAL_EVIDENCE로 제한" in result.notes


def test_story_c008_citing_the_old_401_is_insufficient(service_events):
    old = ServiceEvent.objects.get(event_key="c008-20260718-0002")
    result = _diagnose("C008", C008_INQUIRY, FAILURE_POINT_IDENTIFIED, lambda ctx: [old.event_id])
    assert result.verdict == INSUFFICIENT
    assert result.observed_facts == []

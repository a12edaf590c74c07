"""Fast draft first: the draft is stored about one model call after the input, not after the pipeline.

The scripted model is a real loopback Chat Completions server that sleeps L per call and answers like the
built-in offline model. The structural facts (which calls had arrived when the draft was stored) carry the
proof; the time bounds are loose multiples of L (figures are measured in bench/, not asserted here).
"""

import threading
import time
from datetime import timedelta

import pytest

from drafts import pipeline
from drafts.context import BUDGET_S
from drafts.models import Draft
from drafts.tests.support import inquiry
from llm.offline import respond, structured_name

pytestmark = pytest.mark.django_db(transaction=True)

L = 0.8  # seconds per model call


@pytest.fixture
def slow_model(scripted_model):
    arrivals: list[tuple[str, float]] = []

    def handler(body):
        arrivals.append((structured_name(body) or "text", time.time()))
        return respond(body)

    scripted_model.handler = handler
    scripted_model.latency_s = L
    scripted_model.arrivals = arrivals
    return scripted_model


def _inquiry(customer):
    return inquiry(customer, "주문한 운동화 배송 언제 와요?")


def test_draft_is_stored_one_model_call_after_the_input(customer, slow_model):
    draft = Draft.objects.get(ticket=_inquiry(customer))
    assert (draft.status, draft.qa_state, draft.confidence_state) == ("GENERATED", "DONE", "DONE")
    to_draft = (draft.draft_at - draft.input_at).total_seconds()
    to_confidence = (draft.confidence_at - draft.input_at).total_seconds()
    # Stored before QA was even asked: QA's request arrived after the draft row was written.
    qa_arrival = next(t for name, t in slow_model.arrivals if name == "qa")
    assert draft.draft_at.timestamp() <= qa_arrival
    # About one call (well under two), while the whole pipeline took at least three calls one after another.
    assert L <= to_draft < 1.9 * L, to_draft
    assert to_confidence >= 3 * L, to_confidence


def test_a_hanging_context_source_delays_the_draft_by_at_most_the_budget(customer, slow_model, monkeypatch):
    release = threading.Event()
    real_sources = pipeline.context_sources

    def with_a_hanging_source(customer_id, ticket_id):
        sources = real_sources(customer_id, ticket_id)
        sources["shipping_events"] = lambda: release.wait(30) and []
        return sources

    monkeypatch.setattr(pipeline, "context_sources", with_a_hanging_source)
    try:
        draft = Draft.objects.get(ticket=_inquiry(customer))
    finally:
        release.set()
    assert draft.status == "GENERATED"
    assert draft.context_report["shipping_events"] == "late"
    assert draft.context_report["orders"] == "ok"
    assert draft.draft_at - draft.input_at < timedelta(seconds=BUDGET_S + 1.9 * L)

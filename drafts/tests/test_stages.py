"""Each draft stage is declared once (drafts.stages): a stage declared here, in a test module, runs through the real
pipeline with the built-in model and shows on the review page; the fast draft gets the knowledge retrieved for the
conversation."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse
from pydantic import BaseModel, ConfigDict, Field

from drafts.models import Draft
from drafts.pipeline import _Clock, draft_generate
from drafts.services import drafts_sweep
from drafts.stages import Stage, StageInput, stage_register, stage_unregister, stages, stages_in_run_order
from drafts.tests.support import inquiry
from llm.fence import CUSTOMER, FENCE_RULE, fence, fenced_bodies
from llm.labels import UNKNOWN_PURPOSE, purpose_label

SUMMARY_SYSTEM = f"문의를 상담원이 읽을 한 문장으로 요약하세요.\n{FENCE_RULE}"


class SummaryOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str = Field(title="요약문", min_length=1, max_length=200)


def summary_messages(inp: StageInput) -> list[dict]:
    said = "\n".join(m["body"] for m in inp.snapshot if m["author_type"] == "CUSTOMER")
    return [{"role": "system", "content": SUMMARY_SYSTEM}, {"role": "user", "content": fence(said, label=CUSTOMER)}]


def summary_offline(body: dict) -> dict:
    user = "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")
    return {"summary": f"고객 문의 요약: {fenced_bodies(user, label=CUSTOMER)[-1][:40]}"}


SUMMARY = Stage(
    "summary",
    "문의 요약",
    "문의 요약 작성",
    SummaryOutput,
    summary_messages,
    summary_offline,
    after=("draft",),
    needs=("draft",),
)


@pytest.fixture
def summary_stage():
    stage_register(SUMMARY)
    yield SUMMARY
    stage_unregister(SUMMARY.name)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("sequential", [False, True])
def test_a_stage_declared_in_a_test_runs_through_the_pipeline_and_shows_on_the_review_page(
    summary_stage, customer, offline_model, desk_user, client, settings, sequential
):
    settings.CS_AI_PIPELINE_SEQUENTIAL = sequential
    ticket = inquiry(customer, "주문한 운동화 배송 언제 와요?")
    draft = Draft.objects.get(ticket=ticket)
    assert draft.status == "GENERATED" and draft.qa_state == "DONE"
    assert draft.stage_results == {
        "summary": {"state": "DONE", "output": {"summary": "고객 문의 요약: 주문한 운동화 배송 언제 와요?"}}
    }
    assert draft.stage_state("summary") == "DONE" and not draft.is_unfinished

    client.force_login(desk_user)
    html = client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert '<span class="cs-state cs-DONE" title="DONE">문의 요약: 완료</span>' in html
    assert "<h3>문의 요약</h3>" in html and "<dt>요약문</dt>" in html
    assert "고객 문의 요약: 주문한 운동화 배송 언제 와요?" in html
    record = client.get(reverse("admin:drafts_draft_change", args=[draft.pk])).content.decode()
    assert "문의 요약" in record and "고객 문의 요약: 주문한 운동화 배송 언제 와요?" in record
    # The gateway's call log names what was asked for by the stage's declared words.
    assert purpose_label("summary") == "문의 요약 작성"


@pytest.mark.django_db(transaction=True)
def test_a_declared_stage_that_fails_is_shown_by_its_label_and_keeps_the_draft(
    summary_stage, customer, scripted_model, desk_user, client
):
    from llm.offline import respond, structured_name
    from llm.testing import Fault

    scripted_model.handler = lambda body: Fault(500) if structured_name(body) == "summary" else respond(body)
    ticket = inquiry(customer, "배송 언제 와요?")
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.stage_state("summary")) == ("GENERATED", "FAILED")
    assert draft.errors == {"summary": "InternalServerError"} and draft.has_failure
    client.force_login(desk_user)
    html = client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
    assert "문의 요약: 실패" in html and "실패한 단계 다시 실행" in html

    asked = []
    scripted_model.handler = lambda body: asked.append(structured_name(body)) or respond(body)  # the model is back
    client.post(reverse("admin:tickets_ticket_draft_retry", args=[ticket.pk]))
    assert asked == ["summary"]  # the retry runs the failed stage, and only it
    draft = Draft.objects.get(pk=draft.pk)
    assert draft.stage_state("summary") == "DONE" and draft.attempts == 2 and not draft.has_failure
    assert draft.stage_results["summary"]["output"] == {"summary": "고객 문의 요약: 배송 언제 와요?"}


@pytest.mark.django_db(transaction=True)
def test_the_sweep_retries_a_declared_stage_that_failed_and_finishes_the_draft(
    summary_stage, customer, scripted_model, settings
):
    from llm.offline import respond, structured_name
    from llm.testing import Fault

    settings.CS_SWEEP_GRACE_S = 0
    settings.CS_AI_FAILED_RETRY_BASE_S = 0  # the automatic retry is due at once
    scripted_model.handler = lambda body: Fault(500) if structured_name(body) == "summary" else respond(body)
    ticket = inquiry(customer, "배송 언제 와요?")
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.stage_state("summary"), draft.attempts) == ("GENERATED", "FAILED", 1)
    assert all(state in ("DONE", "SKIPPED") for state in draft.stage_states)  # only the declared stage failed

    asked = []
    scripted_model.handler = lambda body: asked.append(structured_name(body)) or respond(body)  # the model is back
    assert drafts_sweep().requested == {"failed": 1}
    assert asked == ["summary"]  # the retry runs the failed stage, and only it
    draft = Draft.objects.get(pk=draft.pk)
    assert (draft.status, draft.stage_state("summary"), draft.attempts) == ("GENERATED", "DONE", 2)
    assert draft.stage_results["summary"]["output"] == {"summary": "고객 문의 요약: 배송 언제 와요?"}
    assert not draft.has_failure and not draft.is_unfinished
    # The draft's status did not move on the retry: its history is the first run's, by the pipeline.
    events = list(draft.events.order_by("id").values_list("type", "actor_type", "payload"))
    assert events == [
        ("CREATED", "SYSTEM", {"after": "PREPARING", "ticket_id": ticket.pk, "message_id": draft.source_message_id}),
        ("GENERATED", "SYSTEM", {"before": "PREPARING", "after": "GENERATED", "attempt": 1}),
    ]
    assert drafts_sweep().requested == {}  # complete: never requested again


@pytest.mark.django_db(transaction=True)
def test_a_stage_declared_after_a_draft_was_made_leaves_the_older_draft_complete_for_the_sweep(
    customer, offline_model, settings
):
    settings.CS_SWEEP_GRACE_S = 0
    ticket = inquiry(customer, "배송 언제 와요?")
    stage_register(SUMMARY)
    try:
        assert drafts_sweep().requested == {}
    finally:
        stage_unregister(SUMMARY.name)
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.attempts, draft.stage_results) == (1, {})


@pytest.mark.django_db(transaction=True)
def test_the_fast_draft_gets_the_retrieved_knowledge_and_cites_it(customer, shop_knowledge, scripted_model):
    """On the demo's knowledge base: what is retrieved and cited is the point."""
    from knowledge.retrieval import retrieve
    from llm.offline import respond, structured_name
    from llm.testing import Fault

    requests = {}

    def handler(body):
        requests[structured_name(body)] = body
        # QA down: what the draft shows is the fast draft's own work.
        return Fault(500) if structured_name(body) == "qa" else respond(body)

    scripted_model.handler = handler
    body = "단순변심으로 교환하고 싶은데 교환 기간이 며칠인가요?"
    ticket = inquiry(customer, body, category="교환/반품", subject="교환")
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.draft_state, draft.qa_state) == ("GENERATED", "DONE", "FAILED")
    prompt = "\n".join(m["content"] for m in requests["draft"]["messages"] if m["role"] == "user")
    top = retrieve(body, k=4)[0]
    assert f"[doc_id={top.doc_id} chunk={top.chunk_index}] {top.title}" in prompt
    assert draft.citations == [{"doc_id": top.doc_id, "chunk": top.chunk_index}]
    assert draft.dropped_citations == []


def test_every_stage_has_words_for_people_and_for_the_gateway():
    names = [stage.name for stage in stages()]
    assert names[:5] == ["draft", "qa", "confidence", "tags", "diagnosis"]  # as the review panel lists them
    assert set(Draft.STAGES) <= set(names)
    for stage in stages():
        assert stage.label and purpose_label(stage.name) == stage.purpose_label != UNKNOWN_PURPOSE


def test_the_run_order_puts_each_stage_after_what_it_waits_for(summary_stage):
    order = [stage.name for stage in stages_in_run_order()]
    for stage in stages():
        assert all(order.index(before) < order.index(stage.name) for before in stage.after), stage.name
    assert order.index("confidence") > order.index("diagnosis")


def test_a_stage_cannot_need_what_it_does_not_wait_for():
    with pytest.raises(ValueError):
        stage_register(Stage("x", "x", "x", SummaryOutput, summary_messages, summary_offline, needs=("draft",)))
    assert "x" not in {stage.name for stage in stages()}


def test_a_stage_cannot_take_the_name_of_the_runs_work_beside_the_stages():
    with pytest.raises(ValueError):
        stage_register(Stage("retrieval", "x", "x", SummaryOutput, summary_messages, summary_offline))
    assert "retrieval" not in {stage.name for stage in stages()}


def _busy(cpu_s: float) -> None:
    start = time.thread_time()
    while time.thread_time() - start < cpu_s:
        pass


def test_the_clock_counts_work_done_inside_another_piece_as_its_own_not_also_the_enclosing_ones():
    clock = _Clock()
    with clock.measure("draft"):
        with clock.measure("context"):
            _busy(0.03)
        time.sleep(0.03)  # waiting (a model call) is not CPU
    figures = clock.take()
    assert figures["context"] >= 30
    assert 0 <= figures["draft"] < 15
    assert clock.take() == {}  # each figure goes out with one write


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("sequential", [False, True])
def test_a_generated_draft_carries_the_cpu_of_each_stage_and_of_the_work_beside_them(
    customer, offline_model, desk_user, client, settings, sequential
):
    settings.CS_AI_PIPELINE_SEQUENTIAL = sequential
    draft = Draft.objects.get(ticket=inquiry(customer, "주문한 운동화 배송 언제 와요?"))
    assert draft.status == "GENERATED" and draft.diagnosis_state == "SKIPPED"
    # A skipped stage ran its check (diagnosis: not an error inquiry): that is CPU too.
    assert set(draft.stage_cpu_ms) == {"draft", "qa", "confidence", "tags", "diagnosis", "context", "retrieval"}
    assert all(isinstance(ms, float) and ms >= 0 for ms in draft.stage_cpu_ms.values())

    client.force_login(desk_user)
    record = client.get(reverse("admin:drafts_draft_change", args=[draft.pk])).content.decode()
    assert "단계별 CPU" in record and "지식 검색</" in record and "<dt>합계</dt>" in record


@pytest.mark.django_db(transaction=True)
def test_a_stage_that_did_not_run_has_no_cpu_figure_and_a_retry_adds_its_own(customer, scripted_model):
    from llm.offline import respond, structured_name
    from llm.testing import Fault

    scripted_model.handler = lambda body: Fault(400) if structured_name(body) == "draft" else respond(body)
    ticket = inquiry(customer, "배송 언제 와요?")
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.draft_state, draft.qa_state, draft.confidence_state) == ("FAILED", "PENDING", "PENDING")
    assert set(draft.stage_cpu_ms) == {"draft", "tags", "diagnosis", "context", "retrieval"}  # QA, confidence waited

    scripted_model.handler = respond  # the model is back
    draft_generate(ticket_id=ticket.pk, message_id=draft.source_message_id, retry_failed=True)
    draft = Draft.objects.get(pk=draft.pk)
    assert draft.status == "GENERATED" and {"qa", "confidence"} <= set(draft.stage_cpu_ms)
    assert set(draft.stage_cpu_ms) == {"draft", "qa", "confidence", "tags", "diagnosis", "context", "retrieval"}

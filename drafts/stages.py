"""The draft pipeline's stages, each declared once: its name, the Korean words people read for it, the output
schema, the message builder (its prompt lives in `drafts.prompts`), what it stores, the built-in model's answer and
what it waits for. The runner (`drafts.pipeline`), the review panel and the draft's record (`drafts.admin`,
`drafts.labels`), the staff API (`drafts.apis`) and the gateway's call log (`llm.labels`, registered at start-up)
read them from here.

Adding a stage is one `Stage(...)` passed to `stage_register` (plus its prompt and tests). A stage without a
`<name>_state` column on `Draft` keeps its state and output in `Draft.stage_results`, so it needs no migration.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.utils import timezone
from pydantic import BaseModel

from diagnostics.policy import FAILURE_POINT_IDENTIFIED, enforce
from diagnostics.schemas import DiagnosisOutput
from diagnostics.selectors import diagnostic_context_gather
from drafts import offline_handlers, prompts
from drafts.guard import text_claim_blockers
from drafts.models import Draft
from drafts.schemas import ConfidenceOutput, DraftOutput, QAOutput, TagsOutput
from knowledge.selectors import faq_list_active
from llm.client import ChatResult
from llm.labels import purpose_label_register, purpose_label_unregister
from llm.offline import register_structured, unregister_structured
from tickets.models import Tag, Ticket

log = logging.getLogger(__name__)


class Run(NamedTuple):
    """One pipeline run: the ticket, the customer input it answers, and its draft row."""

    ticket_id: int
    message_id: int
    draft_id: int
    customer_id: str
    category: str
    input_at: object


@dataclass
class StageInput:
    """What a stage reads. `draft` is the row as the stages before it left it; `hits()` the knowledge retrieved
    for the conversation, `prefetched()` the customer's context and its report (`drafts.context`), each fetched
    once per run; `notes` carries what the message builder found on to `store`."""

    run: Run
    snapshot: list[dict]
    draft: Draft
    hits: Callable[[], list]
    prefetched: Callable[[], tuple[dict, dict]]
    notes: dict[str, Any] = field(default_factory=dict)


def _model_dump(inp: StageInput, out: BaseModel, result: ChatResult) -> dict:
    return out.model_dump()


def _nothing(inp: StageInput) -> dict:
    return {}


@dataclass(frozen=True)
class Stage:
    """One stage. `messages` returns the request, or None when the input does not call for the stage (SKIPPED).
    `store` turns the checked output into the draft's fields (a stage with a `<name>_state` column) or into the
    output kept in `Draft.stage_results` (one without). `after`: the stages it waits for; `needs`: those of them
    that must have succeeded, or it waits for a later run. `on_failure`: fields written beside the failure."""

    name: str
    label: str  # what operators read on the review panel and in errors (초안, QA, ...)
    purpose_label: str  # what the gateway's call log says it asked a model for
    schema: type[BaseModel]
    messages: Callable[[StageInput], list[dict] | None]
    offline: Callable[[dict], dict]  # the built-in model's answer (`llm.offline`)
    store: Callable[[StageInput, Any, ChatResult], dict] = _model_dump
    after: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    on_failure: Callable[[StageInput], dict] = _nothing

    @property
    def has_column(self) -> bool:
        return self.name in Draft.STAGES


_registry: dict[str, Stage] = {}

# The run's work beside the stages, named beside them in `Draft.stage_cpu_ms`: no stage takes these names.
CONTEXT_WORK = "context"  # the customer's context, prefetched once per run (`drafts.context`)
RETRIEVAL_WORK = "retrieval"  # the knowledge retrieved for the conversation, once per run
RUN_WORK = (CONTEXT_WORK, RETRIEVAL_WORK)


def stage_register(stage: Stage) -> None:
    """Declare a stage (at start-up, or in a test). The declaration order is the order people read the stages in;
    the runner orders them by what they wait for."""
    if not set(stage.needs) <= set(stage.after):
        raise ValueError(f"stage {stage.name} needs a stage it does not wait for")
    if stage.name in RUN_WORK:
        raise ValueError(f"{stage.name} names the run's work beside the stages, not a stage")
    _registry[stage.name] = stage
    register_structured(stage.name, stage.offline)
    purpose_label_register(stage.name, stage.purpose_label)


def stage_unregister(name: str) -> None:
    """Remove a stage a test declared."""
    _registry.pop(name, None)
    unregister_structured(name)
    purpose_label_unregister(name)


def stages() -> tuple[Stage, ...]:
    """The declared stages, in declaration order."""
    return tuple(_registry.values())


def stages_in_run_order() -> tuple[Stage, ...]:
    """The declared stages in an order where each comes after those it waits for (declaration order otherwise)."""
    pending, ordered, done = list(_registry.values()), [], set()
    while pending:
        ready = next((s for s in pending if set(s.after) <= done), None)
        if ready is None:
            raise ValueError(f"stages wait in a circle or for undeclared stages: {[s.name for s in pending]}")
        pending.remove(ready)
        ordered.append(ready)
        done.add(ready.name)
    return tuple(ordered)


def stage_labels() -> dict[str, str]:
    return {stage.name: stage.label for stage in _registry.values()}


# --- the fast draft --------------------------------------------------------------------------------------------
def _claim_blockers(inp: StageInput, text: str, field_name: str) -> list[dict]:
    return text_claim_blockers(text, field=field_name, customer_id=inp.run.customer_id, ticket_id=inp.run.ticket_id)


def _citations(inp: StageInput, cited: list) -> tuple[list[dict], list[dict]]:
    # Imported here for its cost, not for a cycle: bm25s + numpy take ~0.4 s, paid by the first draft only.
    from knowledge.retrieval import validate_citations

    kept, dropped = validate_citations([c.model_dump() for c in cited], inp.hits())
    if dropped:
        log.warning("drafts.citation_dropped draft_id=%s count=%d", inp.run.draft_id, len(dropped))
    return kept, dropped


def _draft_messages(inp: StageInput) -> list[dict]:
    context, _ = inp.prefetched()
    faq = [{"question": f.question, "answer": f.answer} for f in faq_list_active(limit=200)]
    return prompts.draft_messages(snapshot=inp.snapshot, context=context, faq=faq, hits=inp.hits())


def _draft_store(inp: StageInput, out: DraftOutput, result: ChatResult) -> dict:
    kept, dropped = _citations(inp, out.citations)
    return {
        "status": Draft.Status.GENERATED,
        "body": out.body,
        "claim_blockers": _claim_blockers(inp, out.body, "body"),
        "citations": kept,
        "dropped_citations": dropped,
        "draft_model": result.model,
        "draft_at": timezone.now(),
        "context_report": inp.prefetched()[1],
    }


def _draft_failed(inp: StageInput) -> dict:
    return {"status": Draft.Status.FAILED, "context_report": inp.prefetched()[1]}


# --- QA ---------------------------------------------------------------------------------------------------------
def _qa_messages(inp: StageInput) -> list[dict]:
    return prompts.qa_messages(snapshot=inp.snapshot, draft=inp.draft.body, hits=inp.hits())


def _qa_store(inp: StageInput, out: QAOutput, result: ChatResult) -> dict:
    kept, dropped = _citations(inp, out.citations)
    return {
        "corrected_body": out.corrected_body,
        "claim_blockers": [
            *(b for b in inp.draft.claim_blockers if b.get("field") == "body"),
            *_claim_blockers(inp, out.corrected_body, "corrected_body"),
        ],
        "citations": kept,
        "dropped_citations": dropped,
        "qa_changes": out.changes,
        "qa_model": result.model,
        "qa_at": timezone.now(),
    }


# --- the confidence evaluation -----------------------------------------------------------------------------------
def _confidence_messages(inp: StageInput) -> list[dict]:
    return prompts.confidence_messages(
        snapshot=inp.snapshot, answer=inp.draft.answer, hits=inp.hits(), diagnosis=inp.draft.diagnosis or None
    )


def _confidence_store(inp: StageInput, out: ConfidenceOutput, result: ChatResult) -> dict:
    blockers = list(out.hard_blockers)
    # Code adds what it can see for itself, whatever the model said. (Money claims are found by the guard
    # at draft time and after QA, in `claim_blockers`, whether or not this stage succeeds.)
    answer, diagnosis = inp.draft.answer, inp.draft.diagnosis
    if diagnosis and diagnosis.get("verdict") != FAILURE_POINT_IDENTIFIED and "원인" in answer and "확인" not in answer:
        blockers.append("진단이 확정하지 못한 원인을 단정함")
    scores = {
        k: getattr(out, k).model_dump() for k in ("groundedness", "completeness", "safety", "uncertainty_handling")
    }
    return {"confidence": scores, "hard_blockers": blockers, "confidence_at": timezone.now()}


# --- tags ---------------------------------------------------------------------------------------------------------
def _tags_messages(inp: StageInput) -> list[dict] | None:
    names = list(Tag.objects.filter(is_active=True).values_list("name", flat=True))
    if not names:
        return None
    inp.notes["allowed"] = set(names)
    return prompts.tags_messages(snapshot=inp.snapshot, tag_names=names)


def _tags_store(inp: StageInput, out: TagsOutput, result: ChatResult) -> dict:
    return {"recommended_tags": [t for t in dict.fromkeys(out.tags) if t in inp.notes["allowed"]]}


# --- the operator-only diagnosis ------------------------------------------------------------------------------------
def _diagnosis_messages(inp: StageInput) -> list[dict] | None:
    if inp.run.category != Ticket.Category.ERROR:
        return None
    context = diagnostic_context_gather(customer_id=inp.run.customer_id, inquiry_at=inp.run.input_at)
    inp.notes["context"] = context
    return prompts.diagnosis_messages(
        snapshot=inp.snapshot, inquiry_at=inp.run.input_at, context=context.as_prompt_context()
    )


def _diagnosis_store(inp: StageInput, out: DiagnosisOutput, result: ChatResult) -> dict:
    context = inp.notes["context"]
    enforced = enforce(
        out, context_event_ids_by_kind=context.event_ids_by_kind(), error_event_ids=context.error_event_ids()
    )
    return {"diagnosis": enforced.as_dict()}


# Fast draft first (one model call after the input and its context, with the retrieved knowledge), then QA, then
# the confidence evaluation; tags and the operator-only diagnosis run beside the draft.
BUILTIN_STAGES = (
    Stage(
        "draft",
        "초안",
        "답변 초안",
        DraftOutput,
        _draft_messages,
        offline_handlers.draft,
        store=_draft_store,
        on_failure=_draft_failed,
    ),
    Stage(
        "qa",
        "QA",
        "초안 QA",
        QAOutput,
        _qa_messages,
        offline_handlers.qa,
        store=_qa_store,
        after=("draft",),
        needs=("draft",),
    ),
    Stage(
        "confidence",
        "신뢰도",
        "신뢰도 평가",
        ConfidenceOutput,
        _confidence_messages,
        offline_handlers.confidence,
        store=_confidence_store,
        after=("draft", "qa", "diagnosis"),
        needs=("draft",),
    ),
    Stage("tags", "태그", "태그 추천", TagsOutput, _tags_messages, offline_handlers.tags, store=_tags_store),
    Stage(
        "diagnosis",
        "진단",
        "오류 진단",
        DiagnosisOutput,
        _diagnosis_messages,
        offline_handlers.diagnosis,
        store=_diagnosis_store,
    ),
)

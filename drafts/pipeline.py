"""The reply-draft pipeline for one (ticket, source input).

Fast draft first (one model call after the input, context prefetched in parallel), then QA, then the
confidence evaluation; tags and the operator-only diagnosis run beside the draft. Every write is fenced:
under a row lock it re-checks that the source input is still the ticket's latest customer message.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from diagnostics.policy import FAILURE_POINT_IDENTIFIED, enforce
from diagnostics.prompts import diagnosis_system_prompt, diagnosis_user_prompt
from diagnostics.schemas import DiagnosisOutput
from diagnostics.selectors import diagnostic_context_gather
from drafts import prompts
from drafts.context import context_prefetch, context_sources
from drafts.guard import text_claim_blockers
from drafts.locks import ticket_lease
from drafts.models import Draft, DraftEvent, StageState
from drafts.schemas import ConfidenceOutput, DraftOutput, QAOutput, TagsOutput
from drafts.services import PIPELINE_ACTOR, draft_event, drafts_supersede
from knowledge.selectors import faq_list_active
from llm import client as llm
from llm.errors import LLMError
from tickets.models import Tag, Ticket, TicketMessage
from tickets.selectors import ticket_latest_customer_message_id
from tickets.services import HANDOFF_TRANSCRIPT_TITLE

log = logging.getLogger(__name__)


class LeaseBusy(Exception):
    """Another worker holds the ticket's lease; the task retries once it has run out (`remaining_s`)."""

    def __init__(self, ticket_id: int, remaining_s: float = 0.0) -> None:
        super().__init__(ticket_id, remaining_s)
        self.remaining_s = remaining_s


class Stale(Exception):
    """A newer customer input exists: this run's work is dropped (the newer event will do it)."""


@dataclass(frozen=True)
class Run:
    ticket_id: int
    message_id: int
    draft_id: int
    customer_id: str
    category: str
    input_at: object


def _fenced_write(run: Run, **fields) -> Draft:
    """Write stage results, or raise Stale. Runs in its own short transaction under row locks."""
    with transaction.atomic():
        Ticket.objects.select_for_update().filter(pk=run.ticket_id).first()
        draft = Draft.objects.select_for_update().get(pk=run.draft_id)
        stale = draft.is_closed
        if not stale and ticket_latest_customer_message_id(run.ticket_id) != run.message_id:
            # Committed before raising: the older draft is visibly SUPERSEDED and never written.
            before = draft.status
            draft.status = Draft.Status.SUPERSEDED
            draft.save(update_fields=["status"])
            draft_event(
                draft,
                DraftEvent.Type.SUPERSEDED,
                actor=PIPELINE_ACTOR,
                before=before,
                after=draft.status,
                reason="newer_input",
            )
            stale = True
        if not stale:
            if fields.get("status") == Draft.Status.GENERATED:
                drafts_supersede(
                    where=Q(ticket_id=run.ticket_id, status=Draft.Status.GENERATED) & ~Q(pk=draft.pk),
                    actor=PIPELINE_ACTOR,
                    reason="newer_draft",
                )
            if "errors" in fields:
                fields["errors"] = {**draft.errors, **fields["errors"]}
            before = draft.status
            for name, value in fields.items():
                setattr(draft, name, value)
            draft.save(update_fields=list(fields))
            if "status" in fields and draft.status != before and draft.status in DraftEvent.Type.values:
                payload = {"before": before, "after": draft.status, "attempt": draft.attempts}
                if draft.status == Draft.Status.FAILED:
                    payload["errors"] = draft.errors  # error class names per stage, no text
                draft_event(draft, draft.status, actor=PIPELINE_ACTOR, **payload)
    if stale:
        raise Stale
    return draft


def _claim_blockers(run: Run, text: str, field: str) -> list[dict]:
    return text_claim_blockers(text, field=field, customer_id=run.customer_id, ticket_id=run.ticket_id)


def _failed(stage: str, exc: Exception) -> dict:
    error = getattr(exc, "error_class", type(exc).__name__)
    return {f"{stage}_state": StageState.FAILED, "errors": {stage: error}}


def _in_thread(fn, *args):
    try:
        return fn(*args)
    finally:
        connection.close()


# --- stages ------------------------------------------------------------------------------------
def _retrieve(query: str) -> list:
    # Imported here for its cost, not for a cycle: bm25s + numpy take ~0.4 s, paid by the first draft only.
    from knowledge.retrieval import retrieve

    return retrieve(query, k=4)


def _faq() -> list[dict]:
    return [{"question": f.question, "answer": f.answer} for f in faq_list_active(limit=200)]


def _stage_draft(run: Run, snapshot: list[dict], prefetched: tuple[dict, dict]) -> Draft | None:
    context, report = prefetched
    try:
        out, result = llm.structured(
            purpose="draft",
            messages=prompts.draft_messages(snapshot=snapshot, context=context, faq=_faq(), hits=[]),
            schema=DraftOutput,
            name="draft",
        )
    except LLMError as exc:
        _fenced_write(run, status=Draft.Status.FAILED, context_report=report, **_failed("draft", exc))
        return None
    return _fenced_write(
        run,
        status=Draft.Status.GENERATED,
        body=out.body,
        claim_blockers=_claim_blockers(run, out.body, "body"),
        draft_model=result.model,
        draft_state=StageState.DONE,
        draft_at=timezone.now(),
        context_report=report,
    )


def _stage_qa(run: Run, snapshot: list[dict], draft: Draft, hits: list) -> Draft:
    try:
        out, result = llm.structured(
            purpose="qa",
            messages=prompts.qa_messages(snapshot=snapshot, draft=draft.body, hits=hits),
            schema=QAOutput,
            name="qa",
        )
    except LLMError as exc:
        return _fenced_write(run, **_failed("qa", exc))
    from knowledge.retrieval import validate_citations  # cost, not a cycle: see _retrieve

    kept, dropped = validate_citations([c.model_dump() for c in out.citations], hits)
    if dropped:
        log.warning("drafts.citation_dropped draft_id=%s count=%d", run.draft_id, len(dropped))
    return _fenced_write(
        run,
        corrected_body=out.corrected_body,
        claim_blockers=[
            *(b for b in draft.claim_blockers if b.get("field") == "body"),
            *_claim_blockers(run, out.corrected_body, "corrected_body"),
        ],
        citations=kept,
        dropped_citations=dropped,
        qa_changes=out.changes,
        qa_model=result.model,
        qa_state=StageState.DONE,
        qa_at=timezone.now(),
    )


def _stage_confidence(run: Run, snapshot: list[dict], draft: Draft, hits: list, diagnosis: dict | None) -> Draft:
    answer = draft.answer
    try:
        out, _ = llm.structured(
            purpose="confidence",
            messages=prompts.confidence_messages(snapshot=snapshot, answer=answer, hits=hits, diagnosis=diagnosis),
            schema=ConfidenceOutput,
            name="confidence",
        )
    except LLMError as exc:
        return _fenced_write(run, **_failed("confidence", exc))
    blockers = list(out.hard_blockers)
    # Code adds what it can see for itself, whatever the model said. (Money claims are found by the guard
    # at draft time and after QA, in `claim_blockers`, whether or not this stage succeeds.)
    if diagnosis and diagnosis.get("verdict") != FAILURE_POINT_IDENTIFIED and "원인" in answer and "확인" not in answer:
        blockers.append("진단이 확정하지 못한 원인을 단정함")
    scores = {
        k: getattr(out, k).model_dump() for k in ("groundedness", "completeness", "safety", "uncertainty_handling")
    }
    return _fenced_write(
        run, confidence=scores, hard_blockers=blockers, confidence_state=StageState.DONE, confidence_at=timezone.now()
    )


def _stage_tags(run: Run, snapshot: list[dict]) -> None:
    names = list(Tag.objects.filter(is_active=True).values_list("name", flat=True))
    if not names:
        _fenced_write(run, tags_state=StageState.SKIPPED)
        return
    try:
        out, _ = llm.structured(
            purpose="tags",
            messages=prompts.tags_messages(snapshot=snapshot, tag_names=names),
            schema=TagsOutput,
            name="tags",
        )
    except LLMError as exc:
        _fenced_write(run, **_failed("tags", exc))
        return
    allowed = set(names)
    _fenced_write(
        run, recommended_tags=[t for t in dict.fromkeys(out.tags) if t in allowed], tags_state=StageState.DONE
    )


def _stage_diagnosis(run: Run, snapshot: list[dict]) -> dict | None:
    if run.category != Ticket.Category.ERROR:
        _fenced_write(run, diagnosis_state=StageState.SKIPPED)
        return None
    context = diagnostic_context_gather(customer_id=run.customer_id, inquiry_at=run.input_at)
    inquiry = "\n".join(m["body"] for m in snapshot if m["author_type"] == "CUSTOMER")
    try:
        out, _ = llm.structured(
            purpose="diagnosis",
            messages=[
                {"role": "system", "content": diagnosis_system_prompt()},
                {
                    "role": "user",
                    "content": diagnosis_user_prompt(
                        inquiry_text=inquiry, inquiry_at=run.input_at, context=context.as_prompt_context()
                    ),
                },
            ],
            schema=DiagnosisOutput,
            name="diagnosis",
        )
    except LLMError as exc:
        _fenced_write(run, **_failed("diagnosis", exc))
        return None
    enforced = enforce(
        out, context_event_ids_by_kind=context.event_ids_by_kind(), error_event_ids=context.error_event_ids()
    ).as_dict()
    _fenced_write(run, diagnosis=enforced, diagnosis_state=StageState.DONE)
    return enforced


# --- the run -----------------------------------------------------------------------------------
def _claim(ticket: Ticket, message: TicketMessage, *, retry_failed: bool) -> Draft | None:
    with transaction.atomic():
        draft, created = Draft.objects.get_or_create(
            ticket=ticket, source_message=message, defaults={"input_at": message.created_at}
        )
        if created:
            draft_event(
                draft,
                DraftEvent.Type.CREATED,
                actor=PIPELINE_ACTOR,
                after=draft.status,
                ticket_id=ticket.pk,
                message_id=message.pk,
            )
    if not created and (draft.is_closed or not (draft.is_unfinished or (retry_failed and draft.has_failure))):
        return None
    draft.attempts += 1
    draft.attempted_at = timezone.now()
    Draft.objects.filter(pk=draft.pk).update(attempts=draft.attempts, attempted_at=draft.attempted_at)
    return draft


def draft_generate(*, ticket_id: int, message_id: int, retry_failed: bool = False) -> str:
    """Run the pipeline; returns an outcome code for logs and tests. Raises LeaseBusy to be retried."""
    if not getattr(settings, "CS_AI_DRAFTS_ENABLED", True):
        log.info("drafts.disabled ticket_id=%s message_id=%s", ticket_id, message_id)
        return "disabled"
    message = (
        TicketMessage.objects.select_related("ticket")
        .filter(pk=message_id, ticket_id=ticket_id, author_type=TicketMessage.Author.CUSTOMER)
        .first()
    )
    if message is None:
        log.warning("drafts.missing ticket_id=%s message_id=%s", ticket_id, message_id)
        return "missing"
    with ticket_lease(ticket_id) as lease:
        if not lease:
            if ticket_latest_customer_message_id(ticket_id) != message_id:
                return "stale"  # nothing to wait for: a newer input has its own request
            raise LeaseBusy(ticket_id, lease.remaining_s)
        if ticket_latest_customer_message_id(ticket_id) != message_id:
            drafts_supersede(
                where=Q(ticket_id=ticket_id, source_message_id=message_id, status=Draft.Status.PREPARING),
                actor=PIPELINE_ACTOR,
                reason="newer_input",
            )
            return "stale"
        draft = _claim(message.ticket, message, retry_failed=retry_failed)
        if draft is None:
            return "duplicate"
        run = Run(
            ticket_id, message_id, draft.pk, message.ticket.customer_id, message.ticket.category, message.created_at
        )
        # The messages up to the input, and a chat handoff's transcript note (written with the ticket, just
        # after its first message) first: the conversation that led to the request.
        snapshot = sorted(
            TicketMessage.objects.filter(ticket_id=ticket_id)
            .filter(
                Q(id__lte=message_id)
                | Q(author_type=TicketMessage.Author.SYSTEM, body__startswith=HANDOFF_TRANSCRIPT_TITLE)
            )
            .values("id", "author_type", "body"),
            key=lambda m: (m["author_type"] != TicketMessage.Author.SYSTEM, m["id"]),
        )
        try:
            _execute(run, draft, snapshot, sequential=getattr(settings, "CS_AI_PIPELINE_SEQUENTIAL", False))
        except Stale:
            log.info("drafts.stale ticket_id=%s message_id=%s draft_id=%s", ticket_id, message_id, draft.pk)
            return "stale"
    log.info("drafts.done ticket_id=%s message_id=%s draft_id=%s", ticket_id, message_id, draft.pk)
    return "done"


def _execute(run: Run, draft: Draft, snapshot: list[dict], *, sequential: bool) -> None:
    # A chat handoff's transcript note is what the customer asked about: it joins the retrieval query.
    query = " ".join(
        m["body"]
        for m in snapshot
        if m["author_type"] == "CUSTOMER"
        or (m["author_type"] == "SYSTEM" and m["body"].startswith(HANDOFF_TRANSCRIPT_TITLE))
    )[-500:]
    sources = context_sources(run.customer_id, run.ticket_id)
    if sequential:  # the seed's "before": every stage waits for the one before it (benchmark contrast)
        draft_now = draft
        if draft.draft_state != StageState.DONE:
            draft_now = _stage_draft(run, snapshot, context_prefetch(sources))
        hits = _retrieve(query)
        diagnosis = _stage_diagnosis(run, snapshot)
        _stage_tags(run, snapshot)
        if draft_now is not None:
            draft_now = _stage_qa(run, snapshot, draft_now, hits)
            _stage_confidence(run, snapshot, draft_now, hits, diagnosis)
        return
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="drafts") as pool:
        hits_f = pool.submit(_in_thread, _retrieve, query)
        diagnosis_f = (
            pool.submit(_in_thread, _stage_diagnosis, run, snapshot)
            if draft.diagnosis_state in (StageState.PENDING, StageState.FAILED)
            else None
        )
        tags_f = (
            pool.submit(_in_thread, _stage_tags, run, snapshot)
            if draft.tags_state in (StageState.PENDING, StageState.FAILED)
            else None
        )
        current: Draft | None = draft
        if draft.draft_state != StageState.DONE:
            # The context prefetch has its own thread and budget; the side stages are already running.
            current = _stage_draft(run, snapshot, context_prefetch(sources))
        if current is not None:
            hits = hits_f.result()
            if current.qa_state != StageState.DONE:
                current = _stage_qa(run, snapshot, current, hits)
            diagnosis = diagnosis_f.result() if diagnosis_f else (current.diagnosis or None)
            if current.confidence_state != StageState.DONE:
                _stage_confidence(run, snapshot, current, hits, diagnosis)
        for f in (tags_f, diagnosis_f):
            if f is not None:
                f.result()  # surface Stale from side stages

"""The reply-draft pipeline for one (ticket, source input): the runner of the stages `drafts.stages` declares.

Each stage starts once the stages it waits for have ended (fast draft first, with its context prefetched and the
knowledge retrieved beside it; QA and the confidence evaluation after it; tags and the operator-only diagnosis
beside it). Every write is fenced: under a row lock it re-checks that the source input is still the ticket's
latest customer message. Each stage's write carries the CPU its work took (`Draft.stage_cpu_ms`, see `_Clock`).
"""

from __future__ import annotations

import copy
import functools
import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from drafts.context import context_prefetch, context_sources
from drafts.locks import ticket_lease
from drafts.models import Draft, DraftEvent, StageState
from drafts.services import PIPELINE_ACTOR, drafts_supersede
from drafts.stages import CONTEXT_WORK, RETRIEVAL_WORK, Run, Stage, StageInput, stages_in_run_order
from llm import client as llm
from llm.errors import LLMError
from tickets.models import Ticket, TicketMessage
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


# The statuses a stage's fields move a draft to (its other statuses are the supersede's and the operator's, written
# with their own rows), and the row each writes.
_RUN_EVENTS = {Draft.Status.GENERATED: DraftEvent.generated, Draft.Status.FAILED: DraftEvent.failed}


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
            DraftEvent.superseded(draft.pk, actor=PIPELINE_ACTOR, before=before, reason="newer_input").save()
            stale = True
        if not stale:
            if fields.get("status") == Draft.Status.GENERATED:
                drafts_supersede(
                    where=Q(ticket_id=run.ticket_id, status=Draft.Status.GENERATED) & ~Q(pk=draft.pk),
                    actor=PIPELINE_ACTOR,
                    reason="newer_draft",
                )
            for merged in ("errors", "stage_results", "stage_cpu_ms"):  # per-stage maps: a stage adds its own key
                if merged in fields:
                    fields[merged] = {**getattr(draft, merged), **fields[merged]}
            before = draft.status
            for name, value in fields.items():
                setattr(draft, name, value)
            draft.save(update_fields=list(fields))
            event = _RUN_EVENTS.get(draft.status) if "status" in fields and draft.status != before else None
            if event is not None:
                event(draft, actor=PIPELINE_ACTOR, before=before).save()
    if stale:
        raise Stale
    return draft


def _failed(stage: Stage, exc: Exception) -> dict:
    error = getattr(exc, "error_class", type(exc).__name__)
    return {**_state(stage, StageState.FAILED), "errors": {stage.name: error}}


def _state(stage: Stage, state: str, output: dict | None = None) -> dict:
    """The fields that record a stage's state (and, for a stage without its own columns, its output)."""
    if stage.has_column:
        return {f"{stage.name}_state": state}
    entry = {"state": state} if output is None else {"state": state, "output": output}
    return {"stage_results": {stage.name: entry}}


def _in_thread(fn, *args):
    try:
        return fn(*args)
    finally:
        connection.close()


def _retrieve(query: str) -> list:
    # Imported here for its cost, not for a cycle: bm25s + numpy take ~0.4 s, paid by the first draft only.
    from knowledge.retrieval import retrieve

    return retrieve(query, k=4)


def _stage_fields(stage: Stage, inp: StageInput) -> dict:
    """One stage's work: ask the model, check its output. Returns the fields to write."""
    messages = stage.messages(inp)
    if messages is None:
        fields = _state(stage, StageState.SKIPPED)
    else:
        try:
            out, result = llm.structured(purpose=stage.name, messages=messages, schema=stage.schema, name=stage.name)
        except LLMError as exc:
            fields = {**stage.on_failure(inp), **_failed(stage, exc)}
        else:
            stored = stage.store(inp, out, result)
            fields = (
                {**stored, **_state(stage, StageState.DONE)}
                if stage.has_column
                else _state(stage, StageState.DONE, stored)
            )
    return fields


_FINISHED = (StageState.DONE, StageState.SKIPPED)


class _Clock:
    """The CPU each piece of a run's work takes, in ms, read from the CPU clock of the thread that does it
    (`time.thread_time`: two reads a piece; the model's latency is waiting, not CPU). The context prefetch and,
    in parallel, the retrieval run in threads of their own; a piece done inside another in the same thread (the
    retrieval, sequentially, inside the stage that first asks for it) is counted as its own, not also as the
    enclosing one's. Each figure goes out with the next write."""

    def __init__(self) -> None:
        self.unwritten: dict[str, float] = {}
        self._lock = threading.Lock()
        self._inner = threading.local()  # per thread: the CPU of the pieces measured inside the current one

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        outer_inner = getattr(self._inner, "ms", 0.0)
        self._inner.ms = 0.0
        start = time.thread_time()
        try:
            yield
        finally:
            spent = (time.thread_time() - start) * 1000
            own = spent - self._inner.ms
            self._inner.ms = outer_inner + spent
            with self._lock:
                self.unwritten[name] = round(own, 2)

    def take(self) -> dict[str, float]:
        """The figures measured since the last call, for the write about to be made."""
        with self._lock:
            taken, self.unwritten = self.unwritten, {}
        return taken


class _Runner:
    """Runs the stages a draft still needs. In parallel (the default) each stage starts as soon as the stages it
    waits for have ended; `sequential` (the seed's "before", a benchmark contrast) runs one after another."""

    def __init__(self, run: Run, draft: Draft, snapshot: list[dict], *, query: str, sources: dict) -> None:
        self.run, self.draft, self.snapshot, self.query, self.sources = run, draft, snapshot, query, sources
        self.todo = [s for s in stages_in_run_order() if draft.stage_state(s.name) not in _FINISHED]
        self.written: dict = {}  # the fields the ended stages wrote, read by the stages that wait for them
        self.lock = threading.Lock()
        self.prefetch_lock = threading.Lock()  # apart: a prefetch takes up to its budget, `written` never waits
        self._hits: Future | None = None
        self._prefetched: tuple[dict, dict] | None = None
        self.clock = _Clock()

    def _retrieve(self) -> list:
        with self.clock.measure(RETRIEVAL_WORK):
            return _retrieve(self.query)

    def hits(self) -> list:
        if self._hits is None:  # sequential (one thread): retrieved when a stage first asks
            self._hits = Future()
            self._hits.set_result(self._retrieve())
        return self._hits.result()

    def prefetched(self) -> tuple[dict, dict]:
        with self.prefetch_lock:  # one prefetch per run, whichever stage asks first
            if self._prefetched is None:
                measured = functools.partial(self.clock.measure, CONTEXT_WORK)  # in the prefetch's own thread
                self._prefetched = context_prefetch(self.sources, measured=measured)
            return self._prefetched

    def _input(self) -> StageInput:
        draft = copy.copy(self.draft)
        with self.lock:
            for name, value in self.written.items():
                setattr(draft, name, value)
        return StageInput(self.run, self.snapshot, draft, hits=self.hits, prefetched=self.prefetched)

    def _one(self, stage: Stage, waits_for: tuple[Future, ...] = ()) -> None:
        if any(future.exception() is not None for future in waits_for):
            return  # a stage it waits for raised (Stale, say): that surfaces from its own future
        inp = self._input()
        if any(inp.draft.stage_state(name) != StageState.DONE for name in stage.needs):
            return  # what it needs failed: it waits for a retry of the run
        with self.clock.measure(stage.name):  # up to its write, which carries the figure
            fields = _stage_fields(stage, inp)
        draft = _fenced_write(self.run, **fields, stage_cpu_ms=self.clock.take())
        with self.lock:
            self.written.update({name: getattr(draft, name) for name in fields})

    def sequential(self) -> None:
        for stage in self.todo:
            self._one(stage)

    def parallel(self) -> None:
        with ThreadPoolExecutor(max_workers=len(self.todo) + 1, thread_name_prefix="drafts") as pool:
            self._hits = pool.submit(_in_thread, self._retrieve)
            futures: dict[str, Future] = {}
            for stage in self.todo:
                waits_for = tuple(futures[name] for name in stage.after if name in futures)
                futures[stage.name] = pool.submit(_in_thread, self._one, stage, waits_for)
            for future in futures.values():
                future.result()  # surface Stale (or an unexpected error) from any stage


# --- the run -----------------------------------------------------------------------------------
def _claim(ticket: Ticket, message: TicketMessage, *, retry_failed: bool) -> Draft | None:
    with transaction.atomic():
        draft, created = Draft.objects.get_or_create(
            ticket=ticket, source_message=message, defaults={"input_at": message.created_at}
        )
        if created:
            DraftEvent.created(draft, actor=PIPELINE_ACTOR).save()
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
    runner = _Runner(run, draft, snapshot, query=query, sources=context_sources(run.customer_id, run.ticket_id))
    # Inside a caller's transaction (an eager run that has not committed yet, as a test's on-commit capture) the
    # stages stay in this thread: a stage thread has its own connection, would not see the uncommitted rows, and
    # its own writes (the call log) would commit apart from the caller's and survive its rollback.
    if sequential or connection.in_atomic_block:
        runner.sequential()
    else:
        runner.parallel()

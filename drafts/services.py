"""The operator's side of a draft: apply (unchanged or edited), reject; staff re-runs; dead letters."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from actions.claims import find_money_claims
from common.actors import Actor, Person
from common.display import person_name
from common.errors import InvalidState, NotFound, PermissionDenied
from common.outbox import OutboxMessage, outbox_dispatch, outbox_done, outbox_request
from drafts import policy
from drafts.guard import draft_hold_for
from drafts.locks import leases_held
from drafts.models import DeadLetter, Draft, DraftEvent, StageState
from drafts.stages import stage_labels, stages
from tickets.models import Ticket, TicketMessage
from tickets.selectors import ticket_latest_customer_message_id, with_latest_customer_message
from tickets.services import (
    DRAFT_REQUESTED,
    override_reason_check,
    reply_text_check,
    tags_resolve,
    ticket_conflict_check,
    ticket_note_add,
    ticket_reply_add,
    ticket_tags_add,
)

log = logging.getLogger(__name__)

REVIEW_PERMISSION = "drafts.review"
# Who changes a draft when no person does.
PIPELINE_ACTOR = Actor("SYSTEM", "AI 초안 파이프라인")
SWEEP_ACTOR = Actor("SYSTEM", "자동 정리(sweep)")


def drafts_supersede(*, where: Q, actor: Actor, reason: str) -> list[int]:
    """Mark the drafts matching `where` SUPERSEDED, one event per draft, in one transaction: the rows are
    locked and read once, changed by one UPDATE and recorded by one bulk INSERT (three statements, however
    many drafts). Returns the ids changed."""
    with transaction.atomic():
        rows = list(Draft.objects.select_for_update().filter(where).values_list("pk", "status"))
        if not rows:
            return []
        Draft.objects.filter(pk__in=[pk for pk, _ in rows]).update(status=Draft.Status.SUPERSEDED)
        DraftEvent.objects.bulk_create(
            DraftEvent.superseded(pk, actor=actor, before=status, reason=reason) for pk, status in rows
        )
    return [pk for pk, _ in rows]


def _require_reviewer(actor: Person | None) -> None:
    if actor is None or not actor.is_active or not actor.has_perm(REVIEW_PERMISSION):
        raise PermissionDenied("답변 초안을 적용하거나 반려할 권한이 없습니다.")


def _not_live_words(draft: Draft) -> str:
    """Why a draft can no longer be sent or rejected, in plain words: who did what, and when."""
    who = person_name(draft.decided_by) if draft.decided_by is not None else "다른 상담원"
    when = f"{timezone.localtime(draft.decided_at):%H:%M}" if draft.decided_at else ""
    at = f" {when}에" if when else ""
    if draft.status == Draft.Status.APPLIED:
        return f"{who}님이{at} 이 초안으로 먼저 답변했습니다. 고객에게 같은 답변이 두 번 가지 않도록 보내지 않았습니다."
    if draft.status == Draft.Status.REJECTED:
        own = draft.events.filter(type=DraftEvent.Type.REJECTED, payload__reason="own_reply").exists()
        if own:
            return f"{who}님이{at} 직접 답변해서 이 초안은 더 이상 쓰지 않습니다."
        return f"{who}님이{at} 이 초안을 반려했습니다. 직접 답변할 수 있습니다."
    if draft.status == Draft.Status.SUPERSEDED:
        return "고객이 새 메시지를 보내 이 초안은 더 이상 쓰지 않습니다. 새 초안을 기다리거나 직접 답변해 주세요."
    return "이 초안은 아직 준비되지 않았거나 만들지 못했습니다. 직접 답변하거나 초안을 다시 만들어 주세요."


def _locked_live_draft(draft_id: int, *, last_seen_message_id: int | None = None, body: str = "") -> Draft:
    """Ticket first, then draft (the pipeline's fenced write takes them in the same order). With
    `last_seen_message_id`, a conversation that moved on since the operator's screen stops it first
    (409 ticket_changed with the newer messages and `body`, the text that was not sent)."""
    ticket_id = Draft.objects.filter(pk=draft_id).values_list("ticket_id", flat=True).first()
    if ticket_id is None:
        raise NotFound("답변 초안을 찾을 수 없습니다.")
    Ticket.objects.select_for_update().filter(pk=ticket_id).first()
    ticket_conflict_check(ticket_id=ticket_id, last_seen_message_id=last_seen_message_id, body=body)
    draft = Draft.objects.select_for_update(of=("self",)).select_related("ticket", "decided_by").get(pk=draft_id)
    if draft.status != Draft.Status.GENERATED:
        raise InvalidState(_not_live_words(draft), code="draft_not_live")
    if ticket_latest_customer_message_id(ticket_id) != draft.source_message_id:
        raise InvalidState(
            "고객이 새 메시지를 보냈습니다. 새 초안이 준비되면 그 초안으로 답변해 주세요.", code="draft_stale"
        )
    return draft


def draft_apply(
    *,
    draft_id: int,
    final_body: str | None,
    tags: Iterable[str] = (),
    actor: Person,
    override_reason: str = "",
    last_seen_message_id: int | None = None,
) -> Draft:
    """Send the answer as an operator reply. `final_body=None` sends the draft as it is. With
    `last_seen_message_id` (the newest message on the operator's screen), a newer customer message or colleague's
    answer stops it: 409 `ticket_changed` with those messages and the text (tickets.services.ticket_conflict_check).

    Records APPLIED with UNCHANGED or EDITED (by comparing texts, not by which button was pressed),
    the edit ratio, the final text, the operator and the time. Tags are the operator's choice.

    Held (InvalidState `draft_blocked` / `draft_unchecked`, nothing sent) when the final text promises a
    refund or cancellation the customer's records do not show, or when QA or confidence is unfinished or
    failed — unless `override_reason` is given; then the reason, the operator, the time and the holds
    overridden are recorded on the draft.
    """
    _require_reviewer(actor)
    reason = policy.normalise_reply(override_reason or "")
    override_reason_check(reason)
    # The analyser runs before any lock is taken, on the text that will be sent.
    if final_body is None:
        stored = Draft.objects.filter(pk=draft_id).values_list("corrected_body", "body").first()
        checked = policy.normalise_reply((stored[0] or stored[1]) if stored else "")
    else:
        checked = policy.normalise_reply(final_body)
    claims = find_money_claims(checked)
    with transaction.atomic():
        draft = _locked_live_draft(draft_id, last_seen_message_id=last_seen_message_id, body=checked)
        original = policy.normalise_reply(draft.answer)
        final = original if final_body is None else policy.normalise_reply(final_body)
        reply_text_check(final)
        if final != checked:  # QA's answer landed between the read and the lock
            claims = find_money_claims(final)
        hold, held_claims = draft_hold_for(draft, claims=claims, stage_labels=stage_labels())
        if hold.code and not reason:
            raise InvalidState(hold.message, code=hold.code)
        chosen = tags_resolve(tags)
        ratio = policy.edit_ratio(original, final)
        now = timezone.now()
        ticket_reply_add(ticket=draft.ticket, body=final, actor=actor)
        draft.status = Draft.Status.APPLIED
        draft.applied = Draft.Applied.UNCHANGED if final == original else Draft.Applied.EDITED
        draft.edit_ratio = ratio
        draft.final_body = final
        draft.decided_by = actor
        draft.decided_at = now
        fields = ["status", "applied", "edit_ratio", "final_body", "decided_by", "decided_at"]
        if hold.code:
            draft.override_reason = reason
            draft.override_by = actor
            draft.override_at = now
            draft.override_holds = hold.holds
            draft.claim_blockers = [*draft.claim_blockers, *(c.as_blocker(field="final_body") for c in held_claims)]
            fields += ["override_reason", "override_by", "override_at", "override_holds", "claim_blockers"]
        draft.save(update_fields=fields)
        who = Actor.operator(actor)
        DraftEvent.applied(draft, actor=who, tags=[t.name for t in chosen]).save()
        if hold.code:
            DraftEvent.overridden(draft, actor=who, holds=list(hold.holds), claims=len(held_claims)).save()
        ticket = draft.ticket
        ticket_tags_add(ticket=ticket, tags=chosen, actor=actor)
    if hold.code:
        log.warning(
            "draft.overridden draft_id=%s ticket_id=%s holds=%s claims=%d actor_id=%s",
            draft.pk,
            ticket.number,
            ",".join(hold.holds),
            len(held_claims),
            actor.pk,
        )
    log.info(
        "draft.applied draft_id=%s ticket_id=%s applied=%s edit_ratio=%.4f tags=%d actor_id=%s",
        draft.pk,
        ticket.number,
        draft.applied,
        ratio,
        len(chosen),
        actor.pk,
    )
    return draft


def _rejected(
    draft: Draft, *, actor: Person, at: datetime, tags: list[str] | None = None, reason: str | None = None
) -> None:
    """Mark a live (locked) draft REJECTED by `actor`, with its audit row."""
    draft.status = Draft.Status.REJECTED
    draft.decided_by = actor
    draft.decided_at = at
    draft.save(update_fields=["status", "decided_by", "decided_at"])
    DraftEvent.rejected(draft, actor=Actor.operator(actor), tags=tags, reason=reason).save()


def draft_reject(*, draft_id: int, actor: Person, tags: Iterable[str] = ()) -> Draft:
    """The operator will not use this draft. Nothing is sent; the ticket stays open for a person."""
    _require_reviewer(actor)
    with transaction.atomic():
        draft = _locked_live_draft(draft_id)
        chosen = tags_resolve(tags)
        _rejected(draft, actor=actor, at=timezone.now(), tags=[t.name for t in chosen])
        ticket_tags_add(ticket=draft.ticket, tags=chosen, actor=actor)
    log.info("draft.rejected draft_id=%s ticket_id=%s actor_id=%s", draft.pk, draft.ticket.number, actor.pk)
    return draft


# --- an operator's own reply (tickets.hooks) ------------------------------------------------------
def drafts_reject_on_own_reply(*, ticket: Ticket, message: TicketMessage, actor: Person) -> None:
    """Registered as a reply-sent hook (`tickets.hooks`): called in the reply's transaction, with the ticket
    row locked. A live (GENERATED) draft is not left to be sent later on top of an answer the operator wrote
    themselves: it is marked REJECTED by this operator, with a system note saying so."""
    now = timezone.now()
    live = list(Draft.objects.select_for_update().filter(ticket=ticket, status=Draft.Status.GENERATED))
    for draft in live:
        _rejected(draft, actor=actor, at=now, reason="own_reply")
    if live:
        ticket_note_add(
            ticket=ticket,
            body=f"상담원이 직접 답변해 AI 초안 {', '.join(f'D{d.pk}' for d in live)}을(를) 반려했습니다.",
            actor=actor,
        )
        log.info(
            "draft.rejected_by_own_reply ticket_id=%s drafts=%s actor_id=%s",
            ticket.number,
            ",".join(str(d.pk) for d in live),
            actor.pk,
        )


# --- the end of a run ---------------------------------------------------------------------------
# Outcomes after which this request needs nothing more: the draft exists (or is being finished by the run
# that holds it), or the input is gone or superseded.
TERMINAL_OUTCOMES = ("done", "duplicate", "stale", "missing")


def draft_run_finished(*, ticket_id: int, message_id: int, outcome: str) -> None:
    """A run ended normally: its request is done, and a completed input clears its dead letters."""
    if outcome in TERMINAL_OUTCOMES:
        outbox_done(topic=DRAFT_REQUESTED, key=str(message_id))
    if outcome in ("done", "duplicate"):
        dead_letters_resolve(ticket_id=ticket_id, message_id=message_id)


def _reset_broken_connections() -> None:
    """After a database error the thread's connection may be dead: close it (outside any transaction) so
    the next query opens a fresh one."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close()


def draft_run_gave_up(*, ticket_id: int, message_id: int, error: str, retries: int) -> DeadLetter | None:
    """Record a run that gave up, through a fresh connection and transaction (the one the run used may be
    what failed). If even that cannot be written, the periodic sweep still finds the input: it has no
    complete draft, so it is requested again once the database is back."""
    _reset_broken_connections()
    try:
        return dead_letter_record(ticket_id=ticket_id, message_id=message_id, error=error, retries=retries)
    except DatabaseError as exc:
        _reset_broken_connections()
        log.error(
            "draft.dead_letter_unwritten ticket_id=%s message_id=%s error=%s cause=%s",
            ticket_id,
            message_id,
            error,
            type(exc).__name__,
        )
        return None


def draft_run_reset_connections() -> None:
    """Before a run is retried after a database error."""
    _reset_broken_connections()


# --- dead letters ------------------------------------------------------------------------------
def dead_letter_record(*, ticket_id: int, message_id: int, error: str, retries: int) -> DeadLetter | None:
    with transaction.atomic():
        if not TicketMessage.objects.filter(pk=message_id, ticket_id=ticket_id).exists():
            return None
        letter = DeadLetter.objects.create(
            ticket_id=ticket_id, source_message_id=message_id, error=error[:200], retries=retries
        )
    log.error(
        "draft.dead_lettered ticket_id=%s message_id=%s error=%s retries=%d", ticket_id, message_id, error, retries
    )
    return letter


def dead_letters_resolve(*, ticket_id: int, message_id: int) -> int:
    return DeadLetter.objects.filter(
        ticket_id=ticket_id, source_message_id=message_id, resolved_at__isnull=True
    ).update(resolved_at=timezone.now(), resolution=DeadLetter.Resolution.COMPLETED)


# --- requests for a draft ----------------------------------------------------------------------
def draft_request(*, ticket_id: int, message_id: int, retry_failed: bool = False, dispatch: bool = True):
    """Ask (again) for the draft of one input, through the outbox: the request is durable, so a broker
    that is down now only delays it (the outbox sweep hands it over later)."""
    return outbox_request(
        topic=DRAFT_REQUESTED,
        key=str(message_id),
        payload={"ticket_id": ticket_id, "message_id": message_id, "retry_failed": retry_failed},
        dispatch=dispatch,
    )


# --- staff re-runs -----------------------------------------------------------------------------
@dataclass
class RegenerateReport:
    considered: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def _open_latest_inputs(ticket_id: int | None = None, ticket_ids: set[int] | None = None) -> dict[int, int]:
    """{ticket: its latest customer input} for one ticket (any status), or the open ones (of `ticket_ids`)."""
    tickets = Ticket.objects.filter(pk=ticket_id) if ticket_id else Ticket.objects.filter(status=Ticket.Status.OPEN)
    if ticket_ids is not None:
        tickets = tickets.filter(pk__in=ticket_ids)
    return dict(
        with_latest_customer_message(tickets)
        .filter(latest_customer_message_id__isnull=False)
        .order_by("id")
        .values_list("id", "latest_customer_message_id")
    )


def regenerate_targets(*, ticket_id: int | None = None, failed_only: bool = False) -> list[tuple[int, int]]:
    """(ticket, latest customer input) pairs whose draft is missing, unfinished or failed.

    One draft per input is the invariant, so a complete draft is never made twice: re-running
    finishes what is missing and retries what failed. `failed_only` keeps what went wrong: failed stages,
    dead letters, inputs with no draft, and drafts left PREPARING for longer than a lease (a dead run).
    Three queries, whatever the number of tickets.
    """
    latest = _open_latest_inputs(ticket_id)
    inputs = set(latest.values())
    drafts = {d.source_message_id: d for d in Draft.objects.filter(source_message_id__in=inputs)}
    dead = set(
        DeadLetter.objects.filter(source_message_id__in=inputs, resolved_at__isnull=True).values_list(
            "source_message_id", flat=True
        )
    )
    abandoned_before = timezone.now() - timedelta(seconds=settings.CS_AI_LEASE_S)
    pairs = []
    for tid, mid in latest.items():
        draft = drafts.get(mid)
        if draft is not None and draft.is_closed:
            continue
        failed = draft is not None and draft.has_failure
        unfinished = draft is None or draft.is_unfinished
        stuck = (
            draft is not None
            and draft.status == Draft.Status.PREPARING
            and (draft.attempted_at or draft.created_at) < abandoned_before
        )
        if failed or mid in dead or draft is None or stuck or (not failed_only and unfinished):
            pairs.append((tid, mid))
    return pairs


def drafts_regenerate(
    *, ticket_id: int | None = None, failed_only: bool = False, progress: Callable[[Iterable], Iterable] = iter
) -> RegenerateReport:
    """Request the pipeline for each target, retrying failed stages. With a broker each request is queued
    ("queued": there is no result backend to wait on); in embedded mode it runs here and reports its outcome.
    A target that cannot be handed over now ("deferred": broker down) stays requested and the sweep hands
    it over later; the loop always goes on to the next target."""
    report = RegenerateReport()
    targets = regenerate_targets(ticket_id=ticket_id, failed_only=failed_only)
    report.considered = len(targets)
    for tid, mid in progress(targets):
        try:
            request = draft_request(ticket_id=tid, message_id=mid, retry_failed=True, dispatch=False)
            dispatched = outbox_dispatch(request.pk)
            outcome = str(dispatched.result) if dispatched else "deferred"
        except DatabaseError as exc:
            log.warning("draft.regenerate_failed ticket_id=%s error=%s", tid, type(exc).__name__)
            outcome = "error"
        report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
    log.info("draft.regenerate targets=%d outcomes=%s", report.considered, report.outcomes)
    return report


# --- the sweep ---------------------------------------------------------------------------------
@dataclass
class SweepReport:
    superseded_drafts: int = 0
    resolved_dead_letters: int = 0
    requested: dict[str, int] = field(default_factory=dict)


def _superseded_input() -> Q:
    """The row's source input is no longer its ticket's latest customer message."""
    latest = (
        TicketMessage.objects.filter(ticket_id=OuterRef("ticket_id"), author_type=TicketMessage.Author.CUSTOMER)
        .order_by("-id")
        .values("id")[:1]
    )
    return ~Q(source_message_id=Subquery(latest))


def drafts_tidy_superseded() -> tuple[int, int]:
    """Unfinished drafts (PREPARING, GENERATED, FAILED) and unresolved dead letters whose input a newer
    customer message superseded: the drafts become SUPERSEDED, the letters resolved as SUPERSEDED, one log
    event each. An input never becomes the latest again, so this cannot undo anything still wanted."""
    now = timezone.now()
    stale = list(
        Draft.objects.filter(
            _superseded_input(), status__in=[Draft.Status.PREPARING, Draft.Status.GENERATED, Draft.Status.FAILED]
        ).values_list("pk", "ticket_id", "status")
    )
    superseded = 0
    for pk, ticket_id, status in stale:
        # One short transaction per draft, conditional on the status read: a draft that moved on is left alone.
        if drafts_supersede(where=Q(pk=pk, status=status), actor=SWEEP_ACTOR, reason="newer_input"):
            superseded += 1
            log.info("draft.superseded_by_sweep draft_id=%s ticket_id=%s was=%s", pk, ticket_id, status)
    letters = list(
        DeadLetter.objects.filter(_superseded_input(), resolved_at__isnull=True).values_list("pk", "ticket_id")
    )
    resolved = 0
    for pk, ticket_id in letters:
        if DeadLetter.objects.filter(pk=pk, resolved_at__isnull=True).update(
            resolved_at=now, resolution=DeadLetter.Resolution.SUPERSEDED
        ):
            resolved += 1
            log.info("draft.dead_letter_superseded dead_letter_id=%s ticket_id=%s", pk, ticket_id)
    return superseded, resolved


def _incomplete_drafts() -> Q:
    """Drafts that are not closed and not complete: PREPARING, FAILED, a stage column still PENDING or FAILED, or
    a FAILED entry in `stage_results` for a declared stage without a column. (A missing entry is not unfinished:
    a stage declared after a draft was made leaves the older drafts complete, as `Draft.is_unfinished` says.)"""
    open_stage = Q()
    for stage in Draft.STAGES:
        open_stage |= Q(**{f"{stage}_state__in": [StageState.PENDING, StageState.FAILED]})
    for stage in stages():
        if not stage.has_column:
            open_stage |= Q(**{f"stage_results__{stage.name}__state": StageState.FAILED})
    return Q(status__in=[Draft.Status.PREPARING, Draft.Status.FAILED]) | (Q(status=Draft.Status.GENERATED) & open_stage)


def _sweep_candidates() -> dict[int, int]:
    """Open tickets with something outstanding, and their latest customer input: a draft request never
    finished (DISPATCHED, DEAD) or an incomplete draft. Only requested work is repaired: tickets written
    without a request (`generate_synthetic`) stay without drafts, and the query stays small however many
    tickets are open. Requests that no longer matter (superseded input, ticket no longer open) are closed."""
    outstanding = list(
        OutboxMessage.objects.filter(
            topic=DRAFT_REQUESTED, status__in=[OutboxMessage.Status.DISPATCHED, OutboxMessage.Status.DEAD]
        ).values_list("pk", "payload")
    )
    ticket_ids = {payload.get("ticket_id") for _, payload in outstanding}
    ticket_ids |= set(Draft.objects.filter(_incomplete_drafts()).values_list("ticket_id", flat=True))
    latest = _open_latest_inputs(ticket_ids=ticket_ids - {None})
    moot = [pk for pk, payload in outstanding if latest.get(payload.get("ticket_id")) != payload.get("message_id")]
    if moot:
        OutboxMessage.objects.filter(
            pk__in=moot, status__in=[OutboxMessage.Status.DISPATCHED, OutboxMessage.Status.DEAD]
        ).update(status=OutboxMessage.Status.DONE, done_at=timezone.now())
        log.info("draft.requests_moot count=%d", len(moot))
    return latest


def drafts_sweep() -> SweepReport:
    """The self-repair pass (periodic): tidy what newer inputs superseded, then re-request every latest
    input on an open ticket that has no live, complete draft once it has been quiet for CS_SWEEP_GRACE_S
    (a lost broker message, a failed write, a dead worker's expired lease), and every FAILED stage whose
    automatic retry is due. Idempotency stays the pipeline's: one draft per (ticket, input)."""
    report = SweepReport()
    report.superseded_drafts, report.resolved_dead_letters = drafts_tidy_superseded()
    latest = _sweep_candidates()
    if not latest:
        return report
    inputs = list(latest.values())
    created = dict(TicketMessage.objects.filter(pk__in=inputs).values_list("pk", "created_at"))
    drafts = {d.source_message_id: d for d in Draft.objects.filter(source_message_id__in=inputs)}
    requests = {
        int(key.rsplit(":", 1)[1]): (status, dispatched_at)
        for key, status, dispatched_at in OutboxMessage.objects.filter(
            dedupe_key__in=[f"{DRAFT_REQUESTED}:{mid}" for mid in inputs]
        ).values_list("dedupe_key", "status", "dispatched_at")
    }
    held = leases_held(list(latest))
    now = timezone.now()
    for tid, mid in latest.items():
        draft = drafts.get(mid)
        status, dispatched_at = requests.get(mid, (None, None))
        touched = max(t for t in (created[mid], dispatched_at, draft and draft.attempted_at) if t)
        decision = policy.sweep_decision(
            age_s=(now - touched).total_seconds(),
            has_draft=draft is not None,
            closed=draft is not None and draft.is_closed,
            unfinished=draft is None or draft.is_unfinished,
            has_failure=draft is not None and draft.has_failure,
            attempts=draft.attempts if draft else 0,
            since_attempt_s=(now - draft.attempted_at).total_seconds() if draft and draft.attempted_at else None,
            lease_held=tid in held,
            request_pending=status == OutboxMessage.Status.PENDING,
            grace_s=settings.CS_SWEEP_GRACE_S,
            failed_limit=settings.CS_AI_FAILED_RETRY_LIMIT,
            failed_base_s=settings.CS_AI_FAILED_RETRY_BASE_S,
            failed_cap_s=settings.CS_AI_FAILED_RETRY_MAX_S,
        )
        if decision is None:
            continue
        draft_request(ticket_id=tid, message_id=mid, retry_failed=decision == policy.SWEEP_FAILED)
        report.requested[decision] = report.requested.get(decision, 0) + 1
        log.warning(
            "draft.sweep_requested ticket_id=%s message_id=%s reason=%s attempts=%d",
            tid,
            mid,
            decision,
            draft.attempts if draft else 0,
        )
    return report

"""The operator's side of a draft: apply (unchanged or edited), reject; staff re-runs; dead letters."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from actions.claims import find_money_claims
from common.errors import InvalidState, NotFound, PermissionDenied
from drafts import policy
from drafts.guard import draft_hold_for
from drafts.models import DeadLetter, Draft
from tickets.models import Tag, Ticket, TicketMessage
from tickets.selectors import ticket_latest_customer_message_id, with_latest_customer_message
from tickets.services import BODY_MAX

log = logging.getLogger(__name__)

REVIEW_PERMISSION = "drafts.review"


def _require_reviewer(actor: AbstractBaseUser | None) -> None:
    if actor is None or not actor.is_active or not actor.has_perm(REVIEW_PERMISSION):
        raise PermissionDenied("답변 초안을 적용하거나 반려할 권한이 없습니다.")


def _locked_live_draft(draft_id: int) -> Draft:
    """Ticket first, then draft (the pipeline's fenced write takes them in the same order)."""
    ticket_id = Draft.objects.filter(pk=draft_id).values_list("ticket_id", flat=True).first()
    if ticket_id is None:
        raise NotFound("답변 초안을 찾을 수 없습니다.")
    Ticket.objects.select_for_update().filter(pk=ticket_id).first()
    draft = Draft.objects.select_for_update().select_related("ticket").get(pk=draft_id)
    if draft.status != Draft.Status.GENERATED:
        raise InvalidState(
            f"이 초안은 '{draft.get_status_display()}' 상태라 처리할 수 없습니다.", code="draft_not_live"
        )
    if ticket_latest_customer_message_id(ticket_id) != draft.source_message_id:
        raise InvalidState(
            "고객이 새 메시지를 보냈습니다. 새 초안이 준비되면 그 초안으로 답변해 주세요.", code="draft_stale"
        )
    return draft


def _tags_resolve(names: Iterable[str]) -> list[Tag]:
    wanted = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    found = {t.name: t for t in Tag.objects.filter(name__in=wanted, is_active=True)}
    unknown = [n for n in wanted if n not in found]
    if unknown:
        raise InvalidState(f"등록되지 않은 태그입니다: {', '.join(unknown)}", code="unknown_tag")
    return [found[n] for n in wanted]


def draft_apply(
    *,
    draft_id: int,
    final_body: str | None,
    tags: Iterable[str] = (),
    actor: AbstractBaseUser,
    override_reason: str = "",
) -> Draft:
    """Send the answer as an operator reply. `final_body=None` sends the draft as it is.

    Records APPLIED with UNCHANGED or EDITED (by comparing texts, not by which button was pressed),
    the edit ratio, the final text, the operator and the time. Tags are the operator's choice.

    Held (InvalidState `draft_blocked` / `draft_unchecked`, nothing sent) when the final text promises a
    refund or cancellation the customer's records do not show, or when QA or confidence is unfinished or
    failed — unless `override_reason` is given; then the reason, the operator, the time and the holds
    overridden are recorded on the draft.
    """
    _require_reviewer(actor)
    reason = policy.normalise_reply(override_reason or "")
    if len(reason) > policy.OVERRIDE_REASON_MAX:
        raise InvalidState(
            f"예외 발송 사유는 {policy.OVERRIDE_REASON_MAX:,}자를 넘을 수 없습니다.", code="override_reason_too_long"
        )
    # The analyser runs before any lock is taken, on the text that will be sent.
    if final_body is None:
        stored = Draft.objects.filter(pk=draft_id).values_list("corrected_body", "body").first()
        checked = policy.normalise_reply((stored[0] or stored[1]) if stored else "")
    else:
        checked = policy.normalise_reply(final_body)
    claims = find_money_claims(checked)
    with transaction.atomic():
        draft = _locked_live_draft(draft_id)
        original = policy.normalise_reply(draft.answer)
        final = original if final_body is None else policy.normalise_reply(final_body)
        if not final:
            raise InvalidState("보낼 답변이 비어 있습니다.", code="empty_reply")
        if len(final) > BODY_MAX:
            raise InvalidState(f"답변은 {BODY_MAX:,}자를 넘을 수 없습니다.", code="reply_too_long")
        if final != checked:  # QA's answer landed between the read and the lock
            claims = find_money_claims(final)
        hold, held_claims = draft_hold_for(draft, claims=claims)
        if hold.code and not reason:
            raise InvalidState(hold.message, code=hold.code)
        chosen = _tags_resolve(tags)
        ratio = policy.edit_ratio(original, final)
        now = timezone.now()
        TicketMessage.objects.create(
            ticket=draft.ticket, author_type=TicketMessage.Author.OPERATOR, author=actor, body=final
        )
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
        ticket = draft.ticket
        ticket.status = Ticket.Status.ANSWERED
        ticket.save(update_fields=["status", "updated_at"])
        if chosen:
            ticket.tags.add(*chosen)
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


def draft_reject(*, draft_id: int, actor: AbstractBaseUser, tags: Iterable[str] = ()) -> Draft:
    """The operator will not use this draft. Nothing is sent; the ticket stays open for a person."""
    _require_reviewer(actor)
    with transaction.atomic():
        draft = _locked_live_draft(draft_id)
        chosen = _tags_resolve(tags)
        draft.status = Draft.Status.REJECTED
        draft.decided_by = actor
        draft.decided_at = timezone.now()
        draft.save(update_fields=["status", "decided_by", "decided_at"])
        if chosen:
            draft.ticket.tags.add(*chosen)
    log.info("draft.rejected draft_id=%s ticket_id=%s actor_id=%s", draft.pk, draft.ticket.number, actor.pk)
    return draft


# --- dead letters ------------------------------------------------------------------------------
def dead_letter_record(*, ticket_id: int, message_id: int, error: str, retries: int) -> DeadLetter | None:
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
    ).update(resolved_at=timezone.now())


# --- staff re-runs -----------------------------------------------------------------------------
@dataclass
class RegenerateReport:
    considered: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def regenerate_targets(*, ticket_id: int | None = None, failed_only: bool = False) -> list[tuple[int, int]]:
    """(ticket, latest customer input) pairs whose draft is missing, unfinished or failed.

    One draft per input is the invariant, so a complete draft is never made twice: re-running
    finishes what is missing and retries what failed. Three queries, whatever the number of tickets.
    """
    tickets = Ticket.objects.filter(pk=ticket_id) if ticket_id else Ticket.objects.filter(status=Ticket.Status.OPEN)
    latest = dict(
        with_latest_customer_message(tickets)
        .filter(latest_customer_message_id__isnull=False)
        .order_by("id")
        .values_list("id", "latest_customer_message_id")
    )
    inputs = set(latest.values())
    drafts = {d.source_message_id: d for d in Draft.objects.filter(source_message_id__in=inputs)}
    dead = set(
        DeadLetter.objects.filter(source_message_id__in=inputs, resolved_at__isnull=True).values_list(
            "source_message_id", flat=True
        )
    )
    pairs = []
    for tid, mid in latest.items():
        draft = drafts.get(mid)
        if draft is not None and draft.is_closed:
            continue
        failed = draft is not None and draft.has_failure
        unfinished = draft is None or draft.is_unfinished
        if failed or mid in dead or (not failed_only and unfinished):
            pairs.append((tid, mid))
    return pairs


def drafts_regenerate(
    *, ticket_id: int | None = None, failed_only: bool = False, progress: Callable[[Iterable], Iterable] = iter
) -> RegenerateReport:
    """Queue (or, in embedded mode, run) the pipeline for each target, retrying failed stages."""
    from drafts.tasks import generate_draft_task

    report = RegenerateReport()
    targets = regenerate_targets(ticket_id=ticket_id, failed_only=failed_only)
    report.considered = len(targets)
    for tid, mid in progress(targets):
        result = generate_draft_task.apply_async((tid, mid), {"retry_failed": True})
        outcome = result.result if result.ready() and isinstance(result.result, str) else "queued"
        report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
    log.info("draft.regenerate targets=%d outcomes=%s", report.considered, report.outcomes)
    return report

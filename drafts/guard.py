"""The money-claim guard where drafts are made and sent: the fast draft, QA's answer, and the text an
operator sends (edits included). Whether a model stage succeeded does not matter: the code looks at the
text itself, and at the customer's records (actions.selectors.money_claims_check).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from actions.claims import Claim, find_money_claims
from actions.selectors import money_claims_check, money_claims_unsupported
from drafts import policy
from drafts.models import Draft, StageState
from tickets.models import Ticket


def _order_ids(order_id: str | None) -> list[str] | None:
    return [order_id] if order_id else None


def text_claim_blockers(text: str, *, field: str, customer_id: str, ticket_id: int) -> list[dict]:
    """Blockers for the money claims in `text` that the customer's records do not make true. A claim is
    about the ticket's order when it has one. No query when the text makes no claim."""
    claims = find_money_claims(text)
    if not claims:
        return []
    order_id = Ticket.objects.filter(pk=ticket_id).values_list("order_id", flat=True).first()
    unsupported = money_claims_check(claims, customer_id=customer_id, order_ids=_order_ids(order_id))
    return [claim.as_blocker(field=field) for claim in unsupported]


def draft_hold_for(
    draft: Draft, *, claims: list[Claim], stage_labels: Mapping[str, str]
) -> tuple[policy.Hold, list[Claim]]:
    """Why `draft` may not be sent with a text whose claims are `claims` (from `find_money_claims`, run by
    the caller before taking any lock), and the claims that hold it. `stage_labels`: `drafts.stages.stage_labels()`
    (the stages' declarations use this guard, so the caller passes their words in)."""
    ticket = draft.ticket
    unsupported = money_claims_check(claims, customer_id=ticket.customer_id, order_ids=_order_ids(ticket.order_id))
    hold = policy.draft_hold(
        claim_sentences=[c.sentence for c in unsupported],
        stage_states={stage: draft.stage_state(stage) for stage in policy.CHECK_STAGES},
        stage_labels=stage_labels,
        state_labels=dict(StageState.choices),
    )
    return hold, unsupported


def reply_claims_unsupported(*, text: str, customer_id: str, order_ids: Sequence[str] | None) -> list[str]:
    """The guard an operator's own reply passes (registered as `tickets.hooks.reply_guard` at start-up): the
    sentences that promise a refund or cancellation the customer's records do not show."""
    return [c.sentence for c in money_claims_unsupported(text, customer_id=customer_id, order_ids=order_ids)]

from __future__ import annotations

import logging
import time

from celery import shared_task

from drafts.pipeline import LeaseBusy, draft_generate

log = logging.getLogger(__name__)


@shared_task(
    name="drafts.generate_draft",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=150,
    time_limit=180,
    max_retries=30,
)
def generate_draft_task(self, ticket_id: int, message_id: int, retry_failed: bool = False) -> str:
    """Thin entry point: ids in, the pipeline does the work. Idempotent by (ticket, source input).

    A run that gives up (lease never freed, or an unexpected error) is recorded as a dead letter that
    operators see and `regenerate_drafts --failed` retries. A killed worker is not a give-up: the
    message is rejected back to the broker and redelivered.
    """
    from drafts.services import dead_letter_record, dead_letters_resolve

    try:
        outcome = draft_generate(ticket_id=ticket_id, message_id=message_id, retry_failed=retry_failed)
    except LeaseBusy as exc:
        # Another worker holds the ticket; its lease expires on its own if it crashed.
        if self.max_retries is not None and self.request.retries >= self.max_retries:
            dead_letter_record(
                ticket_id=ticket_id, message_id=message_id, error="lease_busy", retries=self.request.retries
            )
            raise
        if self.request.is_eager:
            time.sleep(2)  # in-process retries run inline: the countdown would be ignored
        raise self.retry(exc=exc, countdown=2) from exc
    except Exception as exc:
        dead_letter_record(
            ticket_id=ticket_id, message_id=message_id, error=type(exc).__name__, retries=self.request.retries
        )
        raise
    if outcome in ("done", "duplicate"):
        dead_letters_resolve(ticket_id=ticket_id, message_id=message_id)
    return outcome

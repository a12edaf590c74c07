from __future__ import annotations

import logging

from celery import shared_task

from assist.pipeline import LeaseBusy, draft_generate

log = logging.getLogger(__name__)


@shared_task(
    name="assist.generate_draft",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=150,
    time_limit=180,
    max_retries=30,
)
def generate_draft_task(self, ticket_id: int, message_id: int, retry_failed: bool = False) -> str:
    """Thin entry point: ids in, the pipeline does the work. Idempotent by (ticket, source input)."""
    try:
        return draft_generate(ticket_id=ticket_id, message_id=message_id, retry_failed=retry_failed)
    except LeaseBusy as exc:
        # Another worker holds the ticket; its lease expires on its own if it crashed.
        raise self.retry(exc=exc, countdown=2) from exc

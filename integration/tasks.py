from __future__ import annotations

from celery import shared_task
from celery.result import EagerResult

from common.outbox import OutboxMessage
from integration.services.webhooks import webhook_attempt


@shared_task(
    name="integration.webhook_deliver", acks_late=True, reject_on_worker_lost=True, soft_time_limit=60, time_limit=90
)
def webhook_deliver_task(outbox_id: int) -> str:
    return webhook_attempt(outbox_id=outbox_id)


def webhook_deliver_handler(message: OutboxMessage) -> str:
    """The outbox handler for `webhook.deliver`: hand the POST to the broker; in embedded mode it runs here.
    The outbox owns retries (backoff, jitter, DEAD), so publishing retries only briefly."""
    result = webhook_deliver_task.apply_async(
        (message.pk,), retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
    )
    if isinstance(result, EagerResult):
        return result.result if isinstance(result.result, str) else "error"
    return "queued"

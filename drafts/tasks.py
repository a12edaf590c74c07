from __future__ import annotations

import logging
import time

import redis.exceptions
from celery import shared_task
from celery.result import EagerResult
from django.conf import settings
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

from common.outbox import OutboxMessage
from drafts import policy
from drafts.pipeline import LeaseBusy, draft_generate
from drafts.services import draft_run_finished, draft_run_gave_up, draft_run_reset_connections

log = logging.getLogger(__name__)

# Faults of the database or of Redis (the lease store and broker) that pass: retried with backoff.
TRANSIENT_ERRORS = (
    OperationalError,
    InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    BrokerError,
)


@shared_task(
    name="drafts.generate_draft",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.CS_AI_TASK_SOFT_TIME_LIMIT_S,
    time_limit=settings.CS_AI_TASK_TIME_LIMIT_S,
    max_retries=None,  # each kind of retry has its own bound below: time for a busy lease, a count for faults
)
def generate_draft_task(
    self, ticket_id: int, message_id: int, retry_failed: bool = False, busy_since: float | None = None
) -> str:
    """Thin entry point: ids in, the pipeline does the work. Idempotent by (ticket, source input).

    Retries match the fault: a busy lease is looked at again every CS_AI_LEASE_POLL_S at most and never later
    than its remaining lifetime, and gives up only after CS_AI_LEASE_WAIT_S in all (time, not a count);
    database and broker errors back off exponentially (CS_AI_TRANSIENT_RETRIES times) on a fresh
    connection. A run that gives up is a dead letter, written on a fresh connection; if even that fails,
    the periodic sweep finds the input. A killed worker is not a give-up: the message is rejected back to
    the broker and redelivered. In-process (eager) runs never sleep: the sweep comes back for them.
    """
    eager = bool(self.request.is_eager)
    try:
        outcome = draft_generate(ticket_id=ticket_id, message_id=message_id, retry_failed=retry_failed)
    except LeaseBusy as exc:
        waited = time.time() - busy_since if busy_since else 0.0
        wait = policy.lease_wait_s(
            remaining_s=exc.remaining_s,
            waited_s=waited,
            max_wait_s=settings.CS_AI_LEASE_WAIT_S,
            poll_s=settings.CS_AI_LEASE_POLL_S,
        )
        if wait is None:
            draft_run_gave_up(
                ticket_id=ticket_id, message_id=message_id, error="lease_busy", retries=self.request.retries
            )
            raise
        if eager:
            log.info("drafts.busy_deferred ticket_id=%s message_id=%s", ticket_id, message_id)
            return "busy"
        kwargs = {"retry_failed": retry_failed, "busy_since": busy_since or time.time()}
        raise self.retry(exc=exc, countdown=wait, kwargs=kwargs) from exc
    except TRANSIENT_ERRORS as exc:
        error = type(exc).__name__
        draft_run_reset_connections()
        if self.request.retries >= settings.CS_AI_TRANSIENT_RETRIES:
            draft_run_gave_up(ticket_id=ticket_id, message_id=message_id, error=error, retries=self.request.retries)
            raise
        if eager:
            log.warning("drafts.fault_deferred ticket_id=%s message_id=%s error=%s", ticket_id, message_id, error)
            return "deferred"
        countdown = policy.transient_backoff_s(self.request.retries, cap_s=settings.CS_AI_TRANSIENT_BACKOFF_MAX_S)
        log.warning(
            "drafts.fault_retry ticket_id=%s message_id=%s error=%s retries=%d countdown=%.0f",
            ticket_id,
            message_id,
            error,
            self.request.retries,
            countdown,
        )
        raise self.retry(
            exc=exc, countdown=countdown, kwargs={"retry_failed": retry_failed, "busy_since": busy_since}
        ) from exc
    except Exception as exc:
        draft_run_gave_up(
            ticket_id=ticket_id, message_id=message_id, error=type(exc).__name__, retries=self.request.retries
        )
        raise
    draft_run_finished(ticket_id=ticket_id, message_id=message_id, outcome=outcome)
    return outcome


def draft_requested_handler(message: OutboxMessage) -> str:
    """The outbox handler for "draft.requested": hand the run to the broker. In embedded mode the run
    happens here, and its outcome is returned; with a broker, "queued"."""
    payload = message.payload
    result = generate_draft_task.apply_async(
        (payload["ticket_id"], payload["message_id"]),
        {"retry_failed": bool(payload.get("retry_failed"))},
        # The outbox owns retries (with backoff, from the sweep): don't hold a customer's request on a broker
        # that is down with Celery's own publish retries.
        retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2},
    )
    if isinstance(result, EagerResult):
        return result.result if isinstance(result.result, str) else "error"
    return "queued"

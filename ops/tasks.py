from __future__ import annotations

from celery import shared_task

from ops.sweep import sweep_run


@shared_task(name="ops.sweep", acks_late=False, ignore_result=True)
def sweep_task() -> None:
    """Celery beat's entry (CELERY_BEAT_SCHEDULE): the periodic self-repair pass. Not acked late: a lost
    sweep needs no redelivery, the next one comes within CS_SWEEP_INTERVAL_S."""
    sweep_run()

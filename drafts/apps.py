import logging

from django.apps import AppConfig

log = logging.getLogger(__name__)


def _warm_up(**_kwargs) -> None:
    """Load the Korean analyser and the retrieval index when a worker starts, not on the first inquiry
    (about 2.5 s of CPU that would otherwise land on one customer's draft)."""
    from django.db import connection

    from knowledge.retrieval import retrieve
    from knowledge.tokenize import warm_up

    try:
        warm_up()
        retrieve("배송")
    except Exception as exc:  # a worker must start even when the index is not built yet
        log.warning("drafts.warm_up_failed error=%s", type(exc).__name__)
    finally:
        connection.close()


class DraftsConfig(AppConfig):
    name = "drafts"
    verbose_name = "상담 보조(답변 초안)"

    def ready(self) -> None:
        from celery.signals import worker_process_init, worker_ready

        from common.outbox import outbox_register
        from drafts import checks, offline_handlers  # noqa: F401  (system checks; the built-in model's replies)
        from drafts.tasks import draft_requested_handler
        from tickets.services import DRAFT_REQUESTED

        outbox_register(DRAFT_REQUESTED, draft_requested_handler)

        worker_ready.connect(_warm_up, weak=False, dispatch_uid="drafts.warm_up")  # solo / threads pools
        worker_process_init.connect(_warm_up, weak=False, dispatch_uid="drafts.warm_up_child")  # prefork children

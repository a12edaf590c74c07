import gc
import logging
import os
import threading
import time

from django.apps import AppConfig

from common.runtime import serving_process
from drafts.checks import timing_problems, timings_from_settings  # also registers the system check

log = logging.getLogger(__name__)


def warm_up(**_kwargs) -> None:
    """Load the Korean analyser and the retrieval index when a worker starts, not on the first inquiry
    (about 2.5 s of CPU that would otherwise land on one customer's draft). Imports here: apps.py loads before
    the app registry is ready."""
    from django.db import connection

    from common.tokenize import warm_up as analyser_load
    from knowledge.retrieval import retrieve

    started = time.perf_counter()
    try:
        loaded_now = analyser_load()
        retrieve("배송")
        log.info(
            "drafts.warm_up_done seconds=%.2f pid=%d analyser_loaded_now=%s",
            time.perf_counter() - started,
            os.getpid(),
            loaded_now,
        )
    except Exception as exc:  # a worker must start even when the index is not built yet
        log.warning("drafts.warm_up_failed error=%s", type(exc).__name__)
    finally:
        connection.close()


def warm_up_before_fork(**_kwargs) -> None:
    """Celery's worker_init, in the worker's main process before a prefork pool forks its children: loaded here,
    the analyser and the index are shared copy-on-write by every child instead of each child loading its own
    (about 570 MB each), as gunicorn's master does (cs_project/gunicorn_conf.py). The children's own warm-up
    (worker_process_init) then finds them loaded. No database connection may cross the fork, and `gc.freeze()`
    keeps the collector from writing into the shared objects. With a solo or threads pool it is the worker's
    one warm-up, before it takes work."""
    from django.db import connections

    warm_up()
    connections.close_all()
    gc.collect()
    gc.freeze()


def _timing_warn(**_kwargs) -> None:
    """Celery runs Django's system checks at start but ignores their result: say it in the worker's log."""
    for problem in timing_problems(timings_from_settings()):
        log.error("drafts.timing_misordered problem=%r", problem)


class DraftsConfig(AppConfig):
    name = "drafts"
    verbose_name = "상담 보조(답변 초안)"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from celery.signals import worker_init, worker_process_init

        from common.live import live_topic_extend
        from common.outbox import outbox_register
        from drafts.apis import OPS_TICKET_PART
        from drafts.guard import reply_claims_unsupported
        from drafts.models import DraftEvent
        from drafts.services import drafts_reject_on_own_reply
        from drafts.tasks import draft_requested_handler
        from tickets.api_parts import ops_ticket_part_register
        from tickets.hooks import reply_guard_register, reply_sent_register
        from tickets.services import DRAFT_REQUESTED

        outbox_register(DRAFT_REQUESTED, draft_requested_handler)
        # The pipeline's stages, each declared once (drafts.stages): registering one gives the built-in model its
        # answer and the gateway's call log its purpose label (llm knows no stage).
        from drafts.stages import BUILTIN_STAGES, stage_register  # the app registry is ready only now

        for stage in BUILTIN_STAGES:
            stage_register(stage)
        # What each stage sends, declared beside its prompt builder, for the disclosure (llm.disclosure).
        from drafts.prompts import MODEL_FIELDS  # the app registry is ready only now
        from llm.disclosure import purpose_fields_register  # beside its use, as the imports above

        for purpose, fields in MODEL_FIELDS.items():
            purpose_fields_register(purpose, fields)
        # The operator's own reply (tickets) passes the money-claim guard and rejects the live draft it answers
        # past: tickets names the hooks, drafts fills them in (tickets.hooks).
        reply_guard_register(reply_claims_unsupported)
        reply_sent_register("drafts.reject_live_draft", drafts_reject_on_own_reply)
        # The staff ticket API shows each ticket's drafts (tickets.api_parts).
        ops_ticket_part_register(OPS_TICKET_PART)
        # The ticket list's 초안 column moves with the drafts' audit rows, for those who may read drafts.
        live_topic_extend("tickets", permission="drafts.view_draft", events=DraftEvent.objects.all)
        self._warm_up_if_serving()

        worker_init.connect(_timing_warn, weak=False, dispatch_uid="drafts.timing_warn")
        worker_init.connect(warm_up_before_fork, weak=False, dispatch_uid="drafts.warm_up")
        worker_process_init.connect(warm_up, weak=False, dispatch_uid="drafts.warm_up_child")  # prefork children

    def _warm_up_if_serving(self) -> None:
        """A server loads the analyser and the index as it starts (in a thread: the port opens meanwhile), so
        the first inquiry or escalation after a start does not pay for them."""
        from django.conf import settings

        if settings.CS_WARM_UP_ON_START and serving_process():
            threading.Thread(target=warm_up, name="cs-warm-up", daemon=True).start()
            log.info("drafts.warm_up_started")

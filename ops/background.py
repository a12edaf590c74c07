"""Work after the response in embedded mode, and the warm-up when a server starts.

Embedded mode (no REDIS_URL) runs Celery tasks eagerly: without this, the draft pipeline a customer's inquiry
or chat handoff asks for would run inside that customer's request (seconds of model calls). A served process
(runserver's serving child, a gunicorn worker) installs one background thread as the outbox's runner on its
first request: committed outbox rows are dispatched there, in order, by the same `outbox_dispatch` and the
same task code. A process that dies with work queued loses nothing: the row is still in the outbox, and the
sweep hands it over again after its claim expires. Tests and management commands keep dispatching inline
(CS_OUTBOX_BACKGROUND=False in the test settings; commands serve no requests).

(The Korean analyser and the retrieval index load when a server starts: drafts.apps, common.runtime.)
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from django.db import connections

from common.outbox import outbox_runner_set
from ops.embedded import EmbeddedOnce

log = logging.getLogger(__name__)


class BackgroundRunner:
    """One daemon thread working through a FIFO of callables; each runs with its own DB connections."""

    def __init__(self) -> None:
        self.jobs: queue.Queue[Callable[[], object] | None] = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name="cs-background", daemon=True)

    def __call__(self, job: Callable[[], object]) -> None:
        self.jobs.put(job)

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception as exc:  # the outbox row stays for the sweep
                log.warning("background.job_failed error=%s", type(exc).__name__)
            finally:
                connections.close_all()
                self.jobs.task_done()

    def start(self) -> BackgroundRunner:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=30)


def _started() -> BackgroundRunner:
    runner = BackgroundRunner().start()
    outbox_runner_set(runner)
    log.info("background.embedded_started")
    return runner


def _stopped(runner: BackgroundRunner) -> None:
    outbox_runner_set(None)
    runner.stop()


_embedded = EmbeddedOnce(enabled="CS_OUTBOX_BACKGROUND", start=_started, stop=_stopped)


def embedded_background_ensure(**_kwargs) -> BackgroundRunner | None:
    """Install this process's background runner once, in embedded mode only (a `request_started` receiver)."""
    return _embedded.ensure()


def embedded_background_stop() -> None:
    _embedded.stop()

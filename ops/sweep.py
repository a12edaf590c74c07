"""The periodic self-repair pass, and where it runs.

With a broker, Celery beat sends `ops.sweep` every CS_SWEEP_INTERVAL_S (CELERY_BEAT_SCHEDULE), so
`celery -A cs_project worker -B` (`make worker`) or a separate `celery -A cs_project beat` runs it.

In embedded mode (no REDIS_URL) there is no beat: a daemon thread runs the same pass. It is started by the
first HTTP request a process serves (`request_started`), so only processes that serve the site have one
(runserver's serving child, a gunicorn worker), never `migrate`, `shell` or other commands, and never tests
(CS_SWEEP_EMBEDDED=False in the test settings). Chosen over "run after each response" because repairs must
happen when nobody is using the site too (a model outage ends at night, a draft is still owed), and over
AppConfig.ready because ready() also runs in every management command and in the autoreloader's parent.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import connections

from common.outbox import outbox_purge, outbox_sweep
from drafts.services import drafts_sweep
from integration.services import webhooks_release_held
from ops.embedded import EmbeddedOnce
from retention.services import retention_sweep_part
from tickets.services import tickets_auto_close

log = logging.getLogger(__name__)


def sweep_run() -> dict:
    """One pass: release webhooks held for shops that are active again, hand over outbox rows that were never
    dispatched, repair drafts, delete outbox rows finished long ago, close answered tickets the customer left
    unanswered for CS_AUTO_CLOSE_DAYS, destroy or pseudonymise what outlived its legal period (retention). Each
    part's failure (the database or the broker is down) is logged and does not stop the others; the next pass
    retries."""
    summary: dict = {}
    parts = (
        ("released", webhooks_release_held),
        ("outbox", outbox_sweep),
        ("drafts", drafts_sweep),
        ("purged", outbox_purge),
        ("auto_closed", tickets_auto_close),
        ("retention", retention_sweep_part),
    )
    for name, part in parts:
        try:
            summary[name] = part()
        except Exception as exc:
            log.warning("sweep.failed part=%s error=%s", name, type(exc).__name__)
            summary[name] = f"error:{type(exc).__name__}"
    log.info(
        "sweep.done released=%s outbox=%s drafts=%s purged=%s auto_closed=%s retention=%s",
        summary["released"],
        summary["outbox"],
        summary["drafts"],
        summary["purged"],
        summary["auto_closed"],
        summary["retention"],
    )
    return summary


class EmbeddedSweeper:
    """A daemon thread that runs `sweep_run` every CS_SWEEP_INTERVAL_S seconds until stopped."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="cs-sweeper", daemon=True)

    def _loop(self) -> None:
        while not self.stopped.wait(self.interval_s):
            try:
                sweep_run()
            finally:
                connections.close_all()

    def start(self) -> EmbeddedSweeper:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=30)


def _started() -> EmbeddedSweeper:
    sweeper = EmbeddedSweeper(float(settings.CS_SWEEP_INTERVAL_S)).start()
    log.info("sweep.embedded_started interval_s=%s", settings.CS_SWEEP_INTERVAL_S)
    return sweeper


_embedded = EmbeddedOnce(enabled="CS_SWEEP_EMBEDDED", start=_started, stop=EmbeddedSweeper.stop)


def embedded_sweeper_ensure(**_kwargs) -> EmbeddedSweeper | None:
    """Start this process's sweeper thread once, in embedded mode only (a `request_started` receiver)."""
    return _embedded.ensure()


def embedded_sweeper_stop() -> None:
    _embedded.stop()

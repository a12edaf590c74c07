"""The live-lists benchmark's WSGI entry: the project's application, and a count of the SQL statements this
process runs, written every half second to `$CS_LIVE_BENCH_DIR/queries-<pid>` (the harness adds the files up
at the start and the end of its window; every server process, gunicorn worker or runserver, writes its own)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()

from django.db.backends.signals import connection_created  # noqa: E402  (after the app registry is ready)

_lock = threading.Lock()
_queries = [0]


def _count(execute, sql, params, many, context):
    with _lock:
        _queries[0] += 1
    return execute(sql, params, many, context)


def _on_connect(sender, connection, **kwargs) -> None:
    if _count not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count)


def _flush(directory: Path) -> None:
    target = directory / f"queries-{os.getpid()}"
    while True:
        with _lock:
            value = _queries[0]
        target.write_text(str(value))
        time.sleep(0.5)


connection_created.connect(_on_connect, weak=False, dispatch_uid="bench.live_wsgi.count")
if os.environ.get("CS_LIVE_BENCH_DIR"):
    threading.Thread(target=_flush, args=(Path(os.environ["CS_LIVE_BENCH_DIR"]),), daemon=True).start()

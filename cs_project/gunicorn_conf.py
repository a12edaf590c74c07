"""gunicorn settings for the web server: `gunicorn cs_project.wsgi:application -c cs_project/gunicorn_conf.py`.

The Korean analyser and the retrieval index are most of a web process's memory (about 570 MB of a 620 MB sync
worker). Loaded once in the master before it forks (`preload_app`), their pages are shared copy-on-write by
every worker instead of each worker loading its own copy; `gc.freeze()` keeps the collector from writing into
the shared objects (which would copy their pages back). What each process holds is measured by `make bench`
(docs/BENCHMARKS.md, "Our own cost": private vs shared per process).

The master must hold no thread, database connection or socket when it forks: the usual start-time warm-up in a
background thread (drafts.apps) is replaced here by a synchronous one in `when_ready`, which closes its
database connections, and runs before any worker exists.
"""

import gc
import os

preload_app = True
# Read by the settings when the app is imported (preloaded, in the master): no warm-up thread there.
os.environ["CS_WARM_UP_ON_START"] = "false"


def when_ready(server) -> None:
    """In the master, after the app is loaded and before the first fork."""
    from django.db import connections

    # Imported here: gunicorn reads this file before Django is set up; the app is loaded by the time this runs.
    from drafts.apps import warm_up

    warm_up()
    connections.close_all()
    gc.collect()
    gc.freeze()
    server.log.info("gunicorn.preloaded analyser and index in the master pid=%s", os.getpid())

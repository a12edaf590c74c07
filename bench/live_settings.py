"""Settings for `python -m bench.live_lists`'s servers: the benchmark's settings (DEBUG off) plus the harness's
URLs (the server-sent-events variant it compares against, and static files, which gunicorn does not serve) and
its WSGI entry, which counts each process's queries."""

from bench.settings import *  # noqa: F401,F403

ROOT_URLCONF = "bench.live_urls"
WSGI_APPLICATION = "bench.live_wsgi.application"

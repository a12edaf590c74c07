"""Settings for the benchmark's web server, workers and in-process probes.

The production shape (DEBUG off, PostgreSQL, Redis) without the production module's TLS requirements, so the
figures are not inflated by DEBUG's query log. `CS_BENCH_SCHEMA` points the default connection at another
schema of the same `cs_bench` database (the small dataset that query counts are compared against).
"""

from cs_project.settings.base import *  # noqa: F401,F403
from cs_project.settings.base import DATABASES, env

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
# The benchmark's shop receives webhooks on 127.0.0.1.
CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = True

_schema = env("CS_BENCH_SCHEMA")
if _schema:
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = f"-c search_path={_schema}"

import os

from .base import *  # noqa: F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# No background sweeper thread in test processes: tests run the sweep themselves.
CS_SWEEP_EMBEDDED = False
CS_OUTBOX_BACKGROUND = False  # tests see the draft right after the commit (ops/tests/test_background.py turns it on)
CS_WARM_UP_ON_START = False
# The reference shop receives on 127.0.0.1 (integration/simulator.py); tests of the refusal turn this off.
CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = True
# Every answer checked and computed afresh (cs_project/tests/test_live.py turns the per-process memos on).
CS_LIVE_GRANT_S = 0.0
CS_LIVE_CURSOR_CACHE_S = 0.0
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"chat": "1000/min", "customer": "10000/min", "ticket_message": "1000/min"},
}
CS_MODEL_BUDGET_PER_MINUTE = 10_000
CS_MODEL_BUDGET_PER_DAY = 100_000

# A file, not shared-cache memory: the pipeline's threads need SQLite's real locking (WAL + busy timeout);
# in-memory shared cache fails at once with "database table is locked".
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.environ.get("CS_TEST_SQLITE") or str(BASE_DIR / "var" / "test.sqlite3")  # noqa: F405
    }

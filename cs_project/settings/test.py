import os

from .base import *  # noqa: F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# No background sweeper thread in test processes: tests run the sweep themselves.
CS_SWEEP_EMBEDDED = False
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"chat": "1000/min", "customer": "10000/min"}}  # noqa: F405

# A file, not shared-cache memory: the pipeline's threads need SQLite's real locking (WAL + busy timeout);
# in-memory shared cache fails at once with "database table is locked".
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.environ.get("CS_TEST_SQLITE") or str(BASE_DIR / "var" / "test.sqlite3")  # noqa: F405
    }

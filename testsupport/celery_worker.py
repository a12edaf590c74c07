"""Real Celery workers for tests: the `celery_worker` fixture (one worker) and `celery_worker_factory`
(`start(extra_env=...)`, as many as a test needs, all on the test's queue: kill one, start another, and the
second takes over what the first left unacknowledged).

    @pytest.mark.redis
    @pytest.mark.postgres
    @pytest.mark.django_db(transaction=True)
    def test_draft_runs_on_the_worker(celery_worker, offline_model):
        ...                                   # commit data; .delay()/delay_on_commit() now go to the worker
        wait_until(lambda: Draft.objects.filter(...).exists())

What the fixture does, in order:

1. Starts `python -m celery -A cs_project worker --pool=solo --concurrency=1 --without-heartbeat
   --without-gossip --without-mingle -n <unique hostname> -Q <queue unique to this test> -l info` in its own
   process group, with DJANGO_SETTINGS_MODULE=cs_project.settings.test, REDIS_URL=redis://127.0.0.1:6379/15,
   DATABASE_URL = the pytest-django *test* database (built from `connection.settings_dict`; PostgreSQL or a
   SQLite file), and the domain/model settings in effect at that moment (CS_TODAY, OPENAI_*, CS_LLM_*,
   CS_AI_*). Request `scripted_model` / `offline_model` (or change those settings) *before* `celery_worker`
   if the worker must see them: it reads its settings once, at start.
2. Points this test process at the same broker through the pytest-django `settings` fixture: REDIS_URL,
   CELERY_BROKER_URL, CELERY_TASK_ALWAYS_EAGER=False and CELERY_TASK_DEFAULT_QUEUE=<that queue>. The Celery
   app reads Django settings live (`config_from_object("django.conf:settings")`), but caches its broker
   connection and producer pools, so those are reset here and again at teardown.
3. Waits until that worker (by hostname) answers `app.control.ping` (60 s at most: the Korean analyser loads
   before it takes work; a worker that dies early fails the test with the tail of its log).
4. Yields the `subprocess.Popen`, with extra attributes `hostname`, `queue` and `log_path` (the worker's
   combined stdout/stderr, logfmt lines).
5. Teardown: SIGTERM to the process group, then SIGKILL to the group after 10 s; settings are restored.

The fixture requests `transactional_db`: the worker is another process and sees committed rows only.
The queue is unique so that two test runs sharing Redis db 15 never run each other's tasks; tasks that the
worker itself sends to the *default* queue (not retries, which keep their queue) would not come back to it.
If Redis is not reachable the test is skipped, except under CI=true, where it fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

__all__ = ["TEST_BROKER_URL", "celery_worker", "celery_worker_factory", "worker_database_url"]

# CS_TEST_REDIS_URL lets two checkouts run their worker tests side by side without sharing a queue.
TEST_BROKER_URL = os.environ.get("CS_TEST_REDIS_URL") or "redis://127.0.0.1:6379/15"
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
# Settings the worker should share with the test process, passed as environment variables.
SHARED_SETTINGS = (
    "CS_TODAY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CS_LLM_MODEL",
    "CS_LLM_FALLBACK_MODEL",
    "CS_LLM_TIMEOUT_S",
    "CS_LLM_STRUCTURED_MODE",
    "CS_AI_DRAFTS_ENABLED",
    "CS_AI_PIPELINE_SEQUENTIAL",
)


def worker_database_url(settings_dict: dict) -> str:
    """A DATABASE_URL for the database `settings_dict` names (after pytest-django: the test database)."""
    engine, name = settings_dict["ENGINE"], str(settings_dict["NAME"])
    if engine.endswith("sqlite3"):
        if name in ("", ":memory:") or name.startswith("file:"):
            raise RuntimeError("an in-memory SQLite test database cannot be shared with a worker process")
        return f"sqlite:///{Path(name).resolve()}"
    if engine.endswith("postgresql"):
        user = quote(settings_dict.get("USER") or "", safe="")
        password = settings_dict.get("PASSWORD")
        auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or "localhost"
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{auth}{host}{port}/{quote(name, safe='')}"
    raise RuntimeError(f"unsupported database engine for a test worker: {engine}")


def _log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no worker log)"


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=STOP_TIMEOUT_S)


def _route_here(settings, queue: str) -> None:
    """Point this test process at the test broker and the test's own queue."""
    from cs_project.celery import app, broker_pools_reset

    settings.REDIS_URL = TEST_BROKER_URL
    settings.CELERY_BROKER_URL = TEST_BROKER_URL
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    broker_pools_reset()
    # config_from_object reads Django settings live; make sure nothing pinned app.conf directly.
    assert app.conf.broker_url == TEST_BROKER_URL and app.conf.task_always_eager is False, (
        "cs_project.celery.app.conf no longer follows Django settings; update testsupport/celery_worker.py"
    )


def _start(
    settings, queue: str, extra_env: dict[str, str] | None = None, *, pool: str = "solo", concurrency: int = 1
) -> subprocess.Popen:
    """Start one worker on `queue` and wait until it answers ping (fails the test otherwise)."""
    from django.db import connection

    from cs_project.celery import app

    hostname = f"cs-test-{uuid.uuid4().hex[:10]}@{os.uname().nodename}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cs_project.settings.test",
        "REDIS_URL": TEST_BROKER_URL,
        "DATABASE_URL": worker_database_url(connection.settings_dict),
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    for name in SHARED_SETTINGS:
        value = getattr(settings, name, None)
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value).lower() if isinstance(value, bool) else str(value)
    env.update(extra_env or {})

    log_file = tempfile.NamedTemporaryFile(prefix="celery-worker-", suffix=".log", delete=False)  # noqa: SIM115
    log_path = Path(log_file.name)
    command = [
        sys.executable, "-m", "celery", "-A", "cs_project", "worker",
        f"--pool={pool}", f"--concurrency={concurrency}",
        "--without-heartbeat", "--without-gossip", "--without-mingle",
        "-n", hostname, "-Q", queue, "-l", "info",
    ]  # fmt: skip
    proc = subprocess.Popen(
        command, cwd=Path(settings.BASE_DIR), env=env, stdout=log_file, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    log_file.close()  # the child holds its own descriptor
    proc.hostname, proc.queue, proc.log_path = hostname, queue, log_path
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            pytest.fail(f"celery worker exited with {proc.returncode}:\n{_log_tail(log_path)}")
        if app.control.ping(destination=[hostname], timeout=0.5):
            return proc
        if time.monotonic() > deadline:
            _stop(proc)
            pytest.fail(f"celery worker did not answer ping in {START_TIMEOUT_S:g}s:\n{_log_tail(log_path)}")


def _require_redis() -> None:
    from ops.checks import redis_check

    if not redis_check(TEST_BROKER_URL, timeout_s=1).ok:
        message = f"celery_worker needs Redis at {TEST_BROKER_URL}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def celery_worker_factory(transactional_db, settings) -> Iterator:
    """`start(extra_env=None, pool="solo", concurrency=1) -> Popen`: workers on demand, all on one queue unique to
    the test, so a second worker takes over what a killed one left unacknowledged. `extra_env` adds environment
    (e.g. a short lease or visibility timeout); `pool="prefork"` forks `concurrency` children, as production
    does. Every worker started is stopped at teardown."""
    from cs_project.celery import broker_pools_reset

    _require_redis()
    queue = f"cs-test-{uuid.uuid4().hex[:10]}"
    _route_here(settings, queue)
    started: list[subprocess.Popen] = []

    def start(*, extra_env: dict[str, str] | None = None, pool: str = "solo", concurrency: int = 1) -> subprocess.Popen:
        started.append(_start(settings, queue, extra_env, pool=pool, concurrency=concurrency))
        return started[-1]

    try:
        yield start
    finally:
        for proc in started:
            _stop(proc)
            proc.log_path.unlink(missing_ok=True)
        broker_pools_reset()  # settings are restored by the `settings` fixture right after


@pytest.fixture
def celery_worker(celery_worker_factory) -> subprocess.Popen:
    """A live `celery -A cs_project worker` on Redis db 15 and the test database. See the module docstring."""
    return celery_worker_factory()

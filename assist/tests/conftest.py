import pytest


@pytest.fixture
def c005(shop_knowledge):
    from orders.models import Customer

    return Customer.objects.select_related("user").get(pk="C005")


@pytest.fixture
def live_draft(c005, offline_model):
    """An error inquiry from C005 with its GENERATED draft (built by the offline model after commit)."""
    from assist.models import Draft
    from tickets.services import ticket_create

    ticket = ticket_create(
        customer=c005,
        category="오류",
        subject="결제 오류",
        body="결제하려고 하면 계속 오류가 나요.",
        source="API",
        author=c005.user,
    )
    return Draft.objects.get(ticket=ticket, status="GENERATED")


@pytest.fixture
def staff_api(operator_user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(operator_user)
    return client


@pytest.fixture
def celery_worker_factory(transactional_db, settings):
    """Start real workers on demand, all on one queue unique to the test (so a second worker picks up what a
    killed one left unacknowledged). `extra_env` adds environment, e.g. a short lease or visibility timeout."""
    import os
    import subprocess
    import sys
    import tempfile
    import time
    import uuid
    from pathlib import Path

    from django.db import connection

    from common import testing_celery as tc
    from cs_project.celery import app

    if not tc._redis_available(tc.TEST_BROKER_URL):
        if os.environ.get("CI") == "true":
            pytest.fail(f"needs Redis at {tc.TEST_BROKER_URL}")
        pytest.skip(f"needs Redis at {tc.TEST_BROKER_URL}")
    queue = f"cs-test-{uuid.uuid4().hex[:10]}"
    settings.REDIS_URL = tc.TEST_BROKER_URL
    settings.CELERY_BROKER_URL = tc.TEST_BROKER_URL
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    tc._reset_celery_pools(app)
    started: list[subprocess.Popen] = []

    def start(*, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
        hostname = f"cs-test-{uuid.uuid4().hex[:10]}@{os.uname().nodename}"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "cs_project.settings.test",
            "REDIS_URL": tc.TEST_BROKER_URL,
            "DATABASE_URL": tc.worker_database_url(connection.settings_dict),
            "LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
        for name in tc.SHARED_SETTINGS:
            value = getattr(settings, name, None)
            if value is None:
                env.pop(name, None)
            else:
                env[name] = str(value).lower() if isinstance(value, bool) else str(value)
        env.update(extra_env or {})
        log_file = tempfile.NamedTemporaryFile(prefix="celery-worker-", suffix=".log", delete=False)  # noqa: SIM115
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "cs_project",
                "worker",
                "--pool=solo",
                "--concurrency=1",
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
                "-n",
                hostname,
                "-Q",
                queue,
                "-l",
                "info",
            ],
            cwd=Path(settings.BASE_DIR),
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log_file.close()
        proc.hostname, proc.queue, proc.log_path = hostname, queue, Path(log_file.name)
        started.append(proc)
        deadline = time.monotonic() + tc.START_TIMEOUT_S
        while not app.control.ping(destination=[hostname], timeout=0.5):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"celery worker did not start:\n{tc._log_tail(proc.log_path)}")
        return proc

    yield start
    for proc in started:
        tc._stop(proc)
    tc._reset_celery_pools(app)

"""`manage.py doctor`: one line per check, exit status 1 on any failure."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from llm.testing import Fault, ScriptedModelServer

UNUSED_REDIS = "redis://127.0.0.1:6399/0"


def run_doctor(*args) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("doctor", *args, stdout=out, stderr=out, no_color=True)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


@pytest.fixture
def embedded(settings, offline_model):
    """The embedded default: no Redis, the built-in model."""
    settings.REDIS_URL = None
    settings.CELERY_BROKER_URL = "memory://"


def line(output: str, name: str) -> str:
    return next(row for row in output.splitlines() if f"] {name}:" in row)


@pytest.mark.django_db
def test_doctor_passes_on_the_healthy_embedded_default(shop_knowledge, embedded):
    code, output = run_doctor()
    assert code == 0, output
    for name in ("database", "migrations", "knowledge_index", "model"):
        assert line(output, name).startswith("[ ok ]")
    assert "built-in offline model active, no model endpoint" in line(output, "model")
    assert "CS_AI_DRAFTS_ENABLED=True" in output and "[info]" in output
    assert "redis" not in [row.split("]")[1].split(":")[0].strip() for row in output.splitlines() if "]" in row]
    assert output.rstrip().endswith("doctor: all checks passed")


@pytest.mark.django_db
def test_doctor_fails_and_names_an_unapplied_migration(shop_knowledge, embedded):
    recorder = MigrationRecorder(connection)
    app, name = max(key for key in recorder.applied_migrations() if key[0] == "knowledge")
    recorder.record_unapplied(app, name)
    code, output = run_doctor()
    assert code == 1
    assert line(output, "migrations").startswith("[FAIL]")
    assert f"knowledge.{name}" in output and "python manage.py migrate" in output


@pytest.mark.django_db
def test_doctor_fails_when_the_knowledge_index_is_missing(shop, embedded):
    code, output = run_doctor()
    assert code == 1 and line(output, "knowledge_index").startswith("[FAIL]")
    assert "build_knowledge_index" in line(output, "knowledge_index")


@pytest.mark.django_db
def test_doctor_fails_when_redis_is_down(shop_knowledge, embedded, settings):
    settings.REDIS_URL = settings.CELERY_BROKER_URL = UNUSED_REDIS
    code, output = run_doctor("--timeout", "0.5")
    assert code == 1
    assert line(output, "redis").startswith("[FAIL]") and "127.0.0.1:6399" in line(output, "redis")
    assert line(output, "celery").startswith("[FAIL]") and "skipped" in line(output, "celery")
    assert "redis, celery" in output  # the summary names what failed


@pytest.mark.django_db
def test_doctor_fails_when_the_model_endpoint_refuses(shop_knowledge, settings):
    from llm.client import clear_client_cache

    settings.REDIS_URL = None
    with ScriptedModelServer(handler=lambda body: Fault(500)) as server:
        settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = server.base_url, "test-key"
        clear_client_cache()
        code, output = run_doctor("--timeout", "2")
    clear_client_cache()
    assert code == 1
    assert line(output, "model").startswith("[FAIL]") and "HTTP 500" in line(output, "model")


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_doctor_passes_on_postgres_with_redis_and_a_live_worker(offline_model, shop_knowledge, celery_worker):
    code, output = run_doctor("--timeout", "3")
    assert code == 0, output
    assert "postgresql reachable" in line(output, "database")
    assert line(output, "redis").startswith("[ ok ]")
    assert line(output, "celery").startswith("[ ok ]") and celery_worker.hostname in line(output, "celery")
    # The worker logs through settings.LOGGING too: key/value lines, not Celery's "[...: INFO/MainProcess]".
    worker_log = celery_worker.log_path.read_text(encoding="utf-8")
    log_lines = [row for row in worker_log.splitlines() if " level=" in row]
    assert any("logger=celery.apps.worker" in row and "ready." in row for row in log_lines), worker_log[-2000:]
    assert all(row.startswith("timestamp=") for row in log_lines)
    assert "INFO/MainProcess" not in worker_log


@pytest.mark.django_db
def test_doctor_reports_the_time_limit_lease_visibility_order(shop_knowledge, embedded, settings):
    code, output = run_doctor()
    assert code == 0, output
    assert line(output, "timing") == "[ ok ] timing: task time limit 180s < lease 200s < visibility timeout 600s"

    settings.CS_AI_LEASE_S = 900  # a 900 s lease against a 600 s visibility timeout
    code, output = run_doctor()
    assert code == 1
    assert line(output, "timing").startswith("[FAIL]") and "CS_AI_LEASE_S (900s)" in line(output, "timing")
    assert "timing" in output.rsplit("failed:", 1)[1]

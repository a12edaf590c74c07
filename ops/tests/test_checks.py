"""ops.checks: each check alone, healthy and broken."""

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from llm.testing import Fault, ScriptedModelServer
from ops import checks
from testsupport.celery_worker import TEST_BROKER_URL

UNUSED_REDIS = "redis://127.0.0.1:6399/0"
CLOSED_PORT_URL = "http://127.0.0.1:9/v1"


@pytest.mark.django_db
def test_database_check_answers_select_1():
    check = checks.database_check()
    assert check.ok and "SELECT 1" in check.message


@pytest.mark.django_db
def test_migrations_check_passes_when_all_applied():
    assert checks.migrations_check() == checks.Check("migrations", True, "all migrations applied")


@pytest.mark.django_db
def test_migrations_check_names_the_unapplied_migration_and_the_command():
    # Forget that the newest orders migration ran (rolled back with the test's transaction).
    recorder = MigrationRecorder(connection)
    app, name = max(key for key in recorder.applied_migrations() if key[0] == "orders")
    recorder.record_unapplied(app, name)
    check = checks.migrations_check()
    assert not check.ok
    assert f"orders.{name}" in check.message and "python manage.py migrate" in check.message
    assert "1 unapplied" in check.message


def test_redis_check_fails_with_a_clear_message_on_an_unused_port():
    check = checks.redis_check(UNUSED_REDIS, timeout_s=0.5)
    assert not check.ok
    assert "127.0.0.1:6399" in check.message and "REDIS_URL" in check.message


@pytest.mark.redis
def test_redis_check_passes_on_the_local_redis():
    assert checks.redis_check(TEST_BROKER_URL, timeout_s=1).ok


def test_redis_check_never_prints_the_password():
    check = checks.redis_check("redis://:s3cret-pw@127.0.0.1:6399/0", timeout_s=0.5)
    assert "s3cret-pw" not in check.message


@pytest.mark.redis
def test_celery_check_fails_when_no_worker_listens_on_an_empty_broker_db():
    # Db 14: no test worker uses it, so nobody answers.
    check = checks.celery_workers_check("redis://127.0.0.1:6379/14", timeout_s=0.5)
    assert not check.ok and "celery -A cs_project worker" in check.message


def test_model_check_with_offline_model_says_so_plainly(offline_model):
    check = checks.model_endpoint_check()
    assert check.ok and check.message.startswith("built-in offline model active, no model endpoint")


def test_model_check_passes_when_the_server_answers_a_1_token_call(scripted_model):
    # The scripted server has no GET /models (404): the check falls back to a 1-token chat call.
    check = checks.model_endpoint_check(timeout_s=2)
    assert check.ok and "1-token" in check.message
    [request] = scripted_model.requests
    assert request["max_tokens"] == 1 and request["model"] == "fast-model"


def test_model_check_fails_when_the_server_answers_500(settings):
    from llm.client import clear_client_cache

    with ScriptedModelServer(handler=lambda body: Fault(500)) as server:
        settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = server.base_url, "test-key"
        clear_client_cache()
        check = checks.model_endpoint_check(timeout_s=2)
    clear_client_cache()
    assert not check.ok and "HTTP 500" in check.message and "OPENAI_BASE_URL" in check.message
    assert "test-key" not in check.message


def test_model_check_fails_when_the_port_is_closed(settings):
    from llm.client import clear_client_cache

    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = CLOSED_PORT_URL, None
    clear_client_cache()
    check = checks.model_endpoint_check(timeout_s=1)
    clear_client_cache()
    assert not check.ok and "connection failed" in check.message


@pytest.mark.django_db
def test_knowledge_check_fails_without_documents_and_passes_once_built():
    check = checks.knowledge_index_check()
    assert not check.ok and "build_knowledge_index --load-fixtures" in check.message

    from fixtures.demo import demo_knowledge_seed

    # The documents and their index are what the check reads; the service-event stories (the demo customers')
    # are not, so neither they nor the demo seed are loaded.
    demo_knowledge_seed(service_events=False)
    check = checks.knowledge_index_check()
    assert check.ok and check.message.startswith("built (documents=")


def test_feature_flags_are_information_only(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    flags = checks.feature_flag_checks()
    assert all(c.ok and c.info for c in flags)
    assert any(c.message == "CS_AI_DRAFTS_ENABLED=False" for c in flags)

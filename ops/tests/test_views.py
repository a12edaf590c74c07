"""/healthz and /readyz."""

import pytest
from django.test import Client

from ops.checks import Check
from testsupport.celery_worker import TEST_BROKER_URL

UNUSED_REDIS = "redis://127.0.0.1:6399/0"


def test_healthz_is_200_without_touching_the_database(client: Client):
    # No django_db mark: any query would raise here.
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_readyz_is_200_on_the_embedded_default(client, settings):
    settings.REDIS_URL = None
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"database": "ok"}, "failed": []}


@pytest.mark.redis
@pytest.mark.django_db
def test_readyz_checks_redis_when_configured(client, settings):
    settings.REDIS_URL = TEST_BROKER_URL
    response = client.get("/readyz")
    assert response.status_code == 200 and response.json()["checks"] == {"database": "ok", "redis": "ok"}


@pytest.mark.django_db
def test_readyz_is_503_and_lists_redis_when_redis_is_down(client, settings):
    settings.REDIS_URL = UNUSED_REDIS
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {"database": "ok", "redis": "fail"},
        "failed": ["redis"],
    }


def test_readyz_is_503_when_the_database_fails(client, settings, monkeypatch):
    settings.REDIS_URL = None
    monkeypatch.setattr("ops.checks.database_check", lambda using="default": Check("database", False, "down"))
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["failed"] == ["database"]


def test_probes_need_no_login_and_accept_only_get(client):
    assert client.post("/healthz").status_code == 405

"""Production settings: `check --deploy` is clean, and the probes are not redirected to HTTPS."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "DATABASE_URL")}
    return subprocess.run(
        [sys.executable, *args],
        cwd=BASE_DIR,
        env={**base, "DJANGO_SETTINGS_MODULE": "cs_project.settings.production", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION_ENV = {
    "SECRET_KEY": secrets.token_urlsafe(64),
    "ALLOWED_HOSTS": "cs.example.com",
    "DATABASE_URL": "postgres://cs@db.internal:5432/cs_desk",  # never connected to by these checks
}


def test_check_deploy_is_clean_under_production_settings():
    result = _run("manage.py", "check", "--deploy", "--fail-level", "WARNING", **PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNINGS" not in result.stdout + result.stderr


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS"])
def test_production_refuses_to_start_without(missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}
    result = _run("manage.py", "check", **env)
    assert result.returncode != 0 and f"{missing} must be set in production" in result.stderr


def test_probes_answer_over_plain_http_while_the_rest_redirects_to_https():
    script = (
        "import django; django.setup(); from django.test import Client; c = Client();"
        "print(c.get('/healthz', HTTP_HOST='cs.example.com').status_code,"
        " c.get('/api/docs/', HTTP_HOST='cs.example.com').status_code)"
    )
    result = _run("-c", script, **PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["200", "301"]

"""The database setting built from DATABASE_URL (pure: no connection is made)."""

from pathlib import Path

from cs_project.settings.base import database_config


def test_postgres_gets_persistent_connections_by_default(monkeypatch):
    monkeypatch.delenv("DATABASE_POOL_MAX_SIZE", raising=False)
    config = database_config("postgres://cs@db:5432/cs_desk", Path("/tmp/unused.sqlite3"))
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (60, True)
    assert "pool" not in config.get("OPTIONS", {})


def test_a_pool_size_switches_postgres_to_psycopgs_pool(monkeypatch):
    monkeypatch.setenv("DATABASE_POOL_MAX_SIZE", "48")
    config = database_config("postgres://cs@db:5432/cs_desk", Path("/tmp/unused.sqlite3"))
    assert config["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 48, "timeout": 10}
    assert config["CONN_MAX_AGE"] == 0  # Django refuses persistent connections together with a pool


def test_sqlite_default_ignores_the_pool_and_uses_wal(monkeypatch, tmp_path):
    monkeypatch.setenv("DATABASE_POOL_MAX_SIZE", "48")
    config = database_config(None, tmp_path / "db.sqlite3")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE" and "WAL" in config["OPTIONS"]["init_command"]

"""Operational checks: is this deployment able to serve? Used by `manage.py doctor` and `/readyz`.

Each check returns a `Check` and never raises for the condition it checks: an unreachable database or Redis
is a failed Check with a message that says what to do, not a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from cs_project.celery import app
from drafts.checks import timing_problems, timings_from_settings
from knowledge.selectors import index_status
from llm.client import endpoint_check

__all__ = [
    "Check",
    "celery_workers_check",
    "database_check",
    "doctor_checks",
    "feature_flag_checks",
    "knowledge_index_check",
    "migrations_check",
    "model_endpoint_check",
    "readiness_checks",
    "redis_check",
    "timing_check",
]

DEFAULT_TIMEOUT_S = 3.0
FEATURE_FLAGS = ("CS_AI_DRAFTS_ENABLED", "CS_AI_PIPELINE_SEQUENTIAL", "DEBUG", "CS_TODAY", "CS_LLM_STRUCTURED_MODE")
WORKER_COMMAND = "celery -A cs_project worker -B -l info"  # -B: the periodic sweep (Celery beat) too


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    message: str
    info: bool = False  # an informational line (a setting's value): never a failure


def _error(exc: BaseException) -> str:
    # The class and first line only: driver messages can be long, and a URL may carry a password.
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first[:160]}" if first else type(exc).__name__


# --- database ------------------------------------------------------------------------------------
def database_check(using: str = DEFAULT_DB_ALIAS) -> Check:
    connection = connections[using]
    vendor = connection.vendor
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return Check(
            "database",
            False,
            f"{vendor} unreachable ({_error(exc)}). DATABASE_URL을 확인하고 DB 서버가 떠 있는지 보세요 "
            "(check DATABASE_URL and that the server is running).",
        )
    return Check("database", True, f"{vendor} reachable (SELECT 1)")


def migrations_check(using: str = DEFAULT_DB_ALIAS) -> Check:
    try:
        executor = MigrationExecutor(connections[using])
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:
        return Check("migrations", False, f"could not read migration state ({_error(exc)})")
    pending = [f"{migration.app_label}.{migration.name}" for migration, backwards in plan if not backwards]
    if pending:
        shown = ", ".join(pending[:10]) + (f" 외 {len(pending) - 10}개" if len(pending) > 10 else "")
        return Check(
            "migrations",
            False,
            f"미적용 마이그레이션 {len(pending)}개 ({len(pending)} unapplied): {shown}. "
            "`python manage.py migrate` 를 실행하세요.",
        )
    return Check("migrations", True, "all migrations applied")


# --- Redis and Celery ----------------------------------------------------------------------------
def redis_check(url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> Check:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    try:
        client.ping()
    except Exception as exc:
        return Check(
            "redis",
            False,
            f"Redis unreachable at {_safe_url(url)} ({_error(exc)}). Redis를 시작하거나 REDIS_URL을 고치세요; "
            "REDIS_URL을 비우면 내장 모드 (unset REDIS_URL for embedded mode).",
        )
    finally:
        client.close()
    return Check("redis", True, f"Redis reachable at {_safe_url(url)} (PING)")


def celery_workers_check(broker_url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> Check:
    """At least one worker answers a broadcast ping on `broker_url` within `timeout_s`."""
    try:
        with app.connection_for_write(broker_url) as conn:
            conn.ensure_connection(max_retries=1, timeout=timeout_s)
            replies = app.control.ping(timeout=timeout_s, connection=conn)
    except Exception as exc:
        return Check("celery", False, f"could not reach the broker to ping workers ({_error(exc)})")
    names = sorted(name for reply in replies or [] for name in reply)
    if not names:
        return Check(
            "celery",
            False,
            f"Celery 워커가 {timeout_s:g}초 안에 응답하지 않았습니다 (no worker answered ping). "
            f"`{WORKER_COMMAND}` 로 워커를 시작하세요. 워커가 없으면 AI 초안이 만들어지지 않습니다.",
        )
    return Check("celery", True, f"{len(names)} worker(s) answered: {', '.join(names[:5])}")


def _safe_url(url: str) -> str:
    """host:port/db without credentials."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


# --- model endpoint ------------------------------------------------------------------------------
def model_endpoint_check(*, timeout_s: float = DEFAULT_TIMEOUT_S) -> Check:
    status = endpoint_check(timeout_s=timeout_s)
    if status.offline:
        return Check(
            "model",
            True,
            "built-in offline model active, no model endpoint (내장 오프라인 모델: 언어를 이해하지 못하는 데모용; "
            "실제 모델은 OPENAI_BASE_URL / OPENAI_API_KEY 설정)",
        )
    if status.ok:
        return Check("model", True, status.detail)
    return Check(
        "model",
        False,
        f"model endpoint not answering: {status.detail}. OPENAI_BASE_URL·OPENAI_API_KEY·CS_LLM_MODEL을 확인하고 "
        "모델 서버가 떠 있는지 보세요 (채팅은 실패 시 상담 티켓으로 넘어갑니다).",
    )


# --- knowledge index -----------------------------------------------------------------------------
def knowledge_index_check() -> Check:
    try:
        status = index_status()
    except Exception as exc:
        return Check(
            "knowledge_index",
            False,
            f"could not read the index ({_error(exc)}); 마이그레이션부터 적용하세요 (`python manage.py migrate`).",
        )
    counts = f"documents={status['documents']} chunks={status['chunks']}"
    if status["built"]:
        return Check("knowledge_index", True, f"built ({counts})")
    if not status["documents"]:
        return Check(
            "knowledge_index",
            False,
            f"활성 지식 문서가 없습니다 (no active documents, {counts}). "
            "`python manage.py build_knowledge_index --load-fixtures` 를 실행하세요.",
        )
    return Check(
        "knowledge_index",
        False,
        f"색인이 없거나 문서 수정 뒤 갱신되지 않았습니다 (index missing or stale, {counts}). "
        "`python manage.py build_knowledge_index` 를 실행하세요.",
    )


# --- time limits, lease, visibility ---------------------------------------------------------------
def timing_check() -> Check:
    """The system check drafts.E001, as a doctor line."""
    t = timings_from_settings()
    summary = (
        f"task time limit {t.task_time_limit_s:g}s < lease {t.lease_s:g}s < visibility timeout "
        f"{t.visibility_timeout_s:g}s"
    )
    problems = timing_problems(t)
    if problems:
        return Check("timing", False, " ".join(problems))
    return Check("timing", True, summary)


# --- settings shown as information ---------------------------------------------------------------
def feature_flag_checks() -> list[Check]:
    checks = [Check("flag", True, f"{name}={getattr(settings, name, None)!r}", info=True) for name in FEATURE_FLAGS]
    mode = (
        "REDIS_URL set: Celery worker runs AI drafts"
        if settings.REDIS_URL
        else ("REDIS_URL unset: embedded mode, tasks run in-process after commit")
    )
    checks.append(Check("mode", True, mode, info=True))
    return checks


# --- bundles -------------------------------------------------------------------------------------
def doctor_checks(*, timeout_s: float = DEFAULT_TIMEOUT_S) -> list[Check]:
    """Everything `manage.py doctor` reports, in order. Checks that need the database are reported as
    failed (skipped) when it is unreachable, instead of piling up driver errors."""
    checks = [database_check()]
    if checks[0].ok:
        checks += [migrations_check(), knowledge_index_check()]
    else:
        reason = "skipped: database unreachable (데이터베이스 연결부터 고치세요)"
        checks += [Check("migrations", False, reason), Check("knowledge_index", False, reason)]
    redis_url = getattr(settings, "REDIS_URL", None)
    if redis_url:
        redis = redis_check(redis_url, timeout_s=timeout_s)
        checks.append(redis)
        broker_url = getattr(settings, "CELERY_BROKER_URL", None) or redis_url
        if redis.ok:
            checks.append(celery_workers_check(broker_url, timeout_s=timeout_s))
        else:
            checks.append(Check("celery", False, "skipped: Redis unreachable, no broker to ping workers on"))
    checks.append(model_endpoint_check(timeout_s=timeout_s))
    checks.append(timing_check())
    checks += feature_flag_checks()
    return checks


def readiness_checks(*, timeout_s: float = 1.0) -> list[Check]:
    """What `/readyz` needs: the database and, when configured, Redis. Cheap enough for every probe."""
    checks = [database_check()]
    redis_url = getattr(settings, "REDIS_URL", None)
    if redis_url:
        checks.append(redis_check(redis_url, timeout_s=timeout_s))
    return checks

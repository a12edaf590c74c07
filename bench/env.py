"""The benchmark's surroundings: the `cs_bench` database, Redis db 14, and the real subprocesses (Celery
worker, gunicorn) it measures. Nothing here touches another database or restarts a service."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from chaos.processes import Proc, free_port, wait_http

BASE_DIR = Path(__file__).resolve().parent.parent
PY = sys.executable
# Another database or Redis db when several checkouts share one machine (CS_BENCH_DB, CS_BENCH_REDIS_URL).
DB_NAME = os.environ.get("CS_BENCH_DB") or "cs_bench"
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"
REDIS_URL = os.environ.get("CS_BENCH_REDIS_URL") or "redis://127.0.0.1:6379/14"
SMALL_SCHEMA = "bench_small"
LOG_DIR = BASE_DIR / "var" / "bench"
SETTINGS = "bench.settings"
TODAY = "2026-07-27"
FAST_MODEL, FALLBACK_MODEL = "bench-fast", "bench-strong"


# Throttles and the per-customer model budget stay in the request path (their Redis round trips are real cost)
# but never refuse: the benchmark sends far more turns per customer than any person would. The report lists these.
LIFTED = {
    "CS_CHAT_THROTTLE": "1000000/s",
    "CS_API_THROTTLE": "1000000/s",
    "CS_TICKET_MESSAGE_THROTTLE": "1000000/s",
    "CS_MODEL_BUDGET_PER_MINUTE": "1000000000",
    "CS_MODEL_BUDGET_PER_DAY": "1000000000",
}


def base_env(**extra: str | None) -> dict[str, str]:
    """Environment for every process of the run (this one, workers, gunicorn, probes)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "DATABASE_URL": DATABASE_URL,
        "REDIS_URL": REDIS_URL,
        "OPENAI_API_KEY": "bench",
        "CS_LLM_MODEL": FAST_MODEL,
        "CS_LLM_FALLBACK_MODEL": FALLBACK_MODEL,
        "CS_TODAY": TODAY,
        **LIFTED,
        "CS_AI_PIPELINE_SEQUENTIAL": "false",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


# --- PostgreSQL / Redis ---------------------------------------------------------------------------
def _pg(dbname: str):
    import psycopg

    return psycopg.connect(dbname=dbname, autocommit=True, **PG)


def database_ensure(*, fresh: bool) -> bool:
    """Create `cs_bench` if missing (or drop and recreate it with fresh=True). Returns True if created.
    The maintenance database is used only to create or drop `cs_bench` itself."""
    with _pg("postgres") as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone() is not None
        if exists and fresh:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (DB_NAME,),
            )
            conn.execute(f'DROP DATABASE "{DB_NAME}"')
            exists = False
        if not exists:
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
            return True
    return False


def schema_ensure(name: str, *, fresh: bool = False) -> None:
    with _pg(DB_NAME) as conn:
        if fresh:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{name}"')


def pg_sessions() -> int:
    """Connections ever opened to cs_bench (pg_stat_database.sessions, PostgreSQL 14+)."""
    with _pg(DB_NAME) as conn:
        row = conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (DB_NAME,)).fetchone()
    return int(row[0]) if row else 0


def pg_max_connections() -> int:
    with _pg(DB_NAME) as conn:
        return int(conn.execute("SHOW max_connections").fetchone()[0])


def redis_flush() -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.flushdb()
    finally:
        client.close()


def manage(*args: str, schema: str | None = None, check: bool = True, timeout: float = 1800) -> str:
    """Run `manage.py ...` against cs_bench (optionally another schema of it); returns stdout."""
    out = subprocess.run(
        [PY, "manage.py", *args],
        cwd=BASE_DIR,
        env=base_env(CS_BENCH_SCHEMA=schema),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and out.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return out.stdout


def python_module(module: str, *args: str, schema: str | None = None, timeout: float = 900) -> dict:
    """Run `python -m module ...` in a fresh process on cs_bench; its last stdout line is JSON."""
    out = subprocess.run(
        [PY, "-m", module, *args],
        cwd=BASE_DIR,
        env=base_env(CS_BENCH_SCHEMA=schema),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if out.returncode != 0:
        raise RuntimeError(f"python -m {module} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- subprocesses ---------------------------------------------------------------------------------
def _spawn(name: str, command: list[str], env: dict[str, str]) -> Proc:
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log_path = LOG_DIR / f"{name}.log"
    with open(log_path, "wb") as log_file:
        popen = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
    return Proc(name, popen, log_path, tail_lines=40, stop_timeout_s=15)


def worker_start(*, name: str, model_url: str, sequential: bool, pool: str, concurrency: int) -> Proc:
    """A real `celery -A cs_project worker` on Redis db 14 and cs_bench; waits until it answers ping."""
    env = base_env(OPENAI_BASE_URL=model_url, CS_AI_PIPELINE_SEQUENTIAL="true" if sequential else "false")
    proc = celery_worker_spawn(name=name, env=env, pool=pool, concurrency=concurrency)
    proc.info["sequential"] = sequential
    return proc


def celery_worker_spawn(
    *, name: str, env: dict[str, str], pool: str, concurrency: int, queue: str | None = None
) -> Proc:
    """`celery -A cs_project worker` with `env` (its broker, database, settings), on `queue` (else the default
    one), in its own process group; waits until it answers ping on this process's broker (so point this
    process at the same broker first)."""
    from cs_project.celery import app

    hostname = f"bench-{name}-{os.getpid()}@{socket.gethostname()}"
    command = [
        PY, "-m", "celery", "-A", "cs_project", "worker",
        f"--pool={pool}", f"--concurrency={concurrency}",
        "--without-heartbeat", "--without-gossip", "--without-mingle",
        "-n", hostname, "-l", "warning", *(["-Q", queue] if queue else []),
    ]  # fmt: skip
    proc = _spawn(f"worker-{name}", command, env)
    proc.info = {"pool": pool, "concurrency": concurrency, "hostname": hostname, "queue": queue}
    deadline = time.monotonic() + 60
    while True:
        if not proc.alive():
            raise RuntimeError(f"worker {name} exited:\n{proc.tail()}")
        if app.control.ping(destination=[hostname], timeout=0.5):
            return proc
        if time.monotonic() > deadline:
            proc.stop()
            raise RuntimeError(f"worker {name} did not answer ping:\n{proc.tail()}")


def gunicorn_start(
    *, model_url: str, workers: int, threads: int, worker_class: str = "gthread", config: str | None = None
) -> Proc:
    """gunicorn on a free port; `config` a gunicorn config file (its settings, then these flags)."""
    port = free_port()
    env = base_env(OPENAI_BASE_URL=model_url)
    command = [
        PY, "-m", "gunicorn", "cs_project.wsgi:application", *(["-c", config] if config else []),
        "-b", f"127.0.0.1:{port}", "-w", str(workers), "-k", worker_class,
        *(["--threads", str(threads)] if worker_class == "gthread" else []),
        # A sync worker's first turn loads the Korean analyser; on a busy machine that outlasts the default 30 s.
        "--keep-alive", "30", "--log-level", "warning", "--timeout", "300",
    ]  # fmt: skip
    proc = _spawn("gunicorn", command, env)
    proc.info = {"port": port, "workers": workers, "threads": threads, "worker_class": worker_class}
    try:
        # /api/ping/ answers 401/403 without a token: any of them means Django is serving.
        wait_http(port, proc, path="/api/ping/", ready=lambda status: status in (200, 401, 403))
    except RuntimeError:
        proc.stop()
        raise
    return proc


# --- machine ----------------------------------------------------------------------------------------
def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies from /proc/stat, for CPU utilisation over an interval."""
    with open("/proc/stat") as f:
        fields = [float(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    total = sum(fields[:8])
    return total - idle, total


def cpu_busy_between(start: tuple[float, float], end: tuple[float, float]) -> float:
    busy = end[0] - start[0]
    total = end[1] - start[1]
    return busy / total if total > 0 else 0.0


def machine() -> dict:
    import platform

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    with _pg(DB_NAME) as conn:
        pg_version = conn.execute("SHOW server_version").fetchone()[0]
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": model,
        "memory_gb": mem_gb,
        "python": platform.python_version(),
        "postgresql": pg_version,
        "platform": platform.platform(),
    }


@dataclass(frozen=True)
class ProcStat:
    """One process as /proc/PID/stat shows it: its parent, its process group, its CPU seconds so far."""

    pid: int
    comm: str
    ppid: int
    pgrp: int
    cpu_s: float


def proc_stat(pid: int, raw: str) -> ProcStat:
    """Read one /proc/PID/stat line. The command name is in parentheses and may hold spaces, so the fields are
    counted after its closing one: state, ppid, pgrp, ...; utime and stime are fields 14 and 15 of the full line
    (11 and 12 here)."""
    fields = raw[raw.rindex(")") + 2 :].split()
    return ProcStat(
        pid=pid,
        comm=raw[raw.index("(") + 1 : raw.rindex(")")],
        ppid=int(fields[1]),
        pgrp=int(fields[2]),
        cpu_s=(int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"),
    )


def proc_stats() -> list[ProcStat]:
    """Every readable process (one that exits while being read is left out)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        out.append(proc_stat(int(entry), raw))
    return out


def cpu_by_component(worker_pgids: Collection[int] = ()) -> dict[str, float]:
    """CPU seconds so far: the workers' process groups, PostgreSQL backends, Redis, this process, all CPUs."""
    worker = postgres = redis_s = 0.0
    for proc in proc_stats():
        if proc.pgrp in worker_pgids:
            worker += proc.cpu_s
        elif proc.comm.startswith("postgres"):
            postgres += proc.cpu_s
        elif proc.comm.startswith("redis-server"):
            redis_s += proc.cpu_s
    t = os.times()
    busy, _total = cpu_times()
    return {
        "worker": worker,
        "postgres": postgres,
        "redis": redis_s,
        "bench_process": t.user + t.system,
        "all_cpus_busy": busy / os.sysconf("SC_CLK_TCK"),
    }

"""The web server's config loads the Korean analyser once, in the master, and its workers share it.

A real gunicorn with cs_project/gunicorn_conf.py and two sync workers on an empty SQLite file (the analyser loads
without a database; the index warm-up fails softly there), its workers' memory read from /proc."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.cpu import children, memory_mb

BASE_DIR = Path(__file__).resolve().parents[2]
ANALYSER_MB = 100  # the analyser alone is about this much (common.tokenize)

pytestmark = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc")


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_workers_share_the_analyser_the_master_loaded(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cs_project.settings.base", "DEBUG": "false",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "LOG_LEVEL": "INFO"}  # fmt: skip
    env.pop("REDIS_URL", None)
    log = tmp_path / "gunicorn.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "cs_project.wsgi:application", "-c", "cs_project/gunicorn_conf.py",
             "-b", f"127.0.0.1:{_port()}", "-w", "2", "-k", "sync", "--timeout", "300"],
            cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        workers: list[int] = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = children(proc.pid)
            if len(workers) == 2:
                break
            time.sleep(0.5)
        assert len(workers) == 2, log.read_text(errors="replace")[-2000:]
        master = memory_mb(proc.pid)
        for pid in workers:
            mem = memory_mb(pid)
            # The analyser's pages came from the master: shared with it, not private to each worker.
            assert mem["shared"] >= ANALYSER_MB, (mem, master)
            assert mem["private"] < mem["shared"], (mem, master)
        assert master["rss"] >= ANALYSER_MB
    finally:
        # A graceful stop waits up to gunicorn's graceful timeout for the workers; the test does not need one.
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)

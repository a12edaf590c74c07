"""The processes the fault suite starts and kills: its own redis-server, gunicorn, Celery workers with beat.

Every process is started in its own process group (`start_new_session=True`) and stopped through that group
only; `ProcessSet.stop_all()` runs in a `finally` so nothing outlives the suite. Nothing here touches the
shared Redis on 6379 or the shared PostgreSQL."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
PY = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen
    log_path: Path
    info: dict = field(default_factory=dict)
    tail_lines: int = 30  # how much of its log `tail()` quotes
    stop_timeout_s: float = 10  # how long `stop()` waits after SIGTERM before SIGKILL

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, lines: int | None = None) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-(lines or self.tail_lines) :])

    def kill(self) -> None:
        """SIGKILL to the whole process group (the worker and its pool children, or beat)."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def stop(self, timeout: float | None = None) -> None:
        """SIGTERM to its process group (only what was started here), then SIGKILL after `timeout` seconds."""
        if self.popen.poll() is not None:
            return
        try:
            os.killpg(self.popen.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.popen.wait(timeout=self.stop_timeout_s if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self.kill()


def spawn(name: str, command: list[str], env: dict[str, str], log_dir: Path) -> Proc:
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    with open(log_path, "ab") as log_file:
        popen = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
    return Proc(name, popen, log_path)


class RedisServer:
    """A redis-server of the suite's own on a free port, with AOF on (fsync always) in its own directory.

    `kill()` is SIGKILL; `start(empty=True)` deletes the data directory first (a Redis that lost everything),
    `start()` keeps it (the same appendonly file is replayed)."""

    def __init__(self, data_dir: Path, log_dir: Path) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.log_dir = log_dir
        self.proc: Proc | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, *, empty: bool = False) -> None:
        if empty and self.data_dir.exists():
            shutil.rmtree(self.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        command = [
            shutil.which("redis-server") or "redis-server",
            "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data_dir),
            "--appendonly", "yes", "--appendfsync", "always", "--save", "",
            "--protected-mode", "yes", "--daemonize", "no",
        ]  # fmt: skip
        self.proc = spawn("redis", command, dict(os.environ), self.log_dir)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if not self.proc.alive():
                raise RuntimeError(f"redis-server exited:\n{self.proc.tail()}")
            if self.ping():
                return
            time.sleep(0.1)
        raise RuntimeError(f"redis-server did not answer on {self.port}:\n{self.proc.tail()}")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()


def wait_http(
    port: int,
    proc: Proc,
    *,
    timeout: float = 60,
    path: str = "/healthz",
    ready: Callable[[int], bool] = lambda status: status < 500,
) -> None:
    """Poll `GET path` on `port` until its status is `ready`; raise if `proc` exits or `timeout` passes first."""
    deadline = time.monotonic() + timeout
    while True:
        if not proc.alive():
            raise RuntimeError(f"{proc.name} exited:\n{proc.tail()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
            if ready(status):
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{proc.name} did not answer on {port}:\n{proc.tail()}")
        time.sleep(0.2)


def gunicorn_start(env: dict[str, str], log_dir: Path, *, workers: int = 2, threads: int = 4) -> Proc:
    port = free_port()
    command = [
        PY, "-m", "gunicorn", "cs_project.wsgi:application",
        "-b", f"127.0.0.1:{port}", "-w", str(workers), "-k", "gthread", "--threads", str(threads),
        "--timeout", "60", "--graceful-timeout", "5", "--log-level", "warning",
    ]  # fmt: skip
    proc = spawn("gunicorn", command, env, log_dir)
    proc.info = {"port": port}
    wait_http(port, proc)
    return proc


def worker_start(env: dict[str, str], log_dir: Path, *, name: str, concurrency: int = 2) -> Proc:
    """`celery -A cs_project worker -B` as production runs it (prefork), with beat embedded."""
    hostname = f"chaos-{name}-{os.getpid()}@{socket.gethostname()}"
    schedule = log_dir / f"beat-{name}-schedule"
    command = [
        PY, "-m", "celery", "-A", "cs_project", "worker", "-B", "-s", str(schedule),
        "--pool=prefork", f"--concurrency={concurrency}",
        "--without-gossip", "--without-mingle", "-n", hostname, "-l", "info",
    ]  # fmt: skip
    proc = spawn(f"worker-{name}", command, env, log_dir)
    proc.info = {"hostname": hostname}
    return proc

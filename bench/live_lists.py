"""Lists that update themselves: how late a new inquiry reaches an open list, and what idle open lists cost,
for conditional polling (the shipped mechanism: `GET /admin/live/` with If-None-Match, 304 while nothing
moved) against server-sent events (bench/live_sse.py, a stream per open list).

    python -m bench.live_lists                 # 200 lists, PostgreSQL cs_bench_live, writes bench/results/
    python -m bench.live_lists --quick         # 10 lists on a scratch SQLite file, a few samples (the test)

Each mechanism runs behind a real gunicorn (bench/live_settings.py: DEBUG off, no Redis — nothing the embedded
default lacks) on its own start: polling on the production shape (`-k sync -w 4`, README "Production mode"),
server-sent events on threads (`-k gthread`), the only way 200 streams fit at all; `--also-poll-gthread` adds
polling on the same threaded server, so server kind and mechanism can be told apart. For each:

1. idle cost: N open lists (one thread each in this process, all as the operator's session), one warm-up
   interval, then a fixed window: the CPU time (utime + stime from /proc) of the server's process group and of
   this database's PostgreSQL backends, as a share of one core; the server's SQL statements per second (each
   process counts its own, bench/live_wsgi.py); requests per second;
2. delay: inquiries created through the API (`POST /api/tickets/` as customer C003) at a random moment, while
   the N lists stay open; one more list watches and, when told of a change, fetches the ticket list page and
   looks for the new number. The delay runs from just before the POST (so the API's own time is included) to
   the number found;
3. with `--browser` (polling only): the same, to the row on screen in a headless Chromium on the ticket list,
   with the page's own script and interval.

Then the reason server-sent events do not fit production as it runs: with `-k sync -w 4`, four open streams
take all four workers, and the next request (/healthz) is not answered within 5 s.

Every request is checked: an unexpected status, a dropped stream, an inquiry not seen within 15 s, a server that
exits — any error makes the run invalid: it prints the errors, writes no figures and exits 1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench.env import proc_stats
from bench.report import percentile
from chaos.processes import free_port
from testsupport.browser import CHROMIUM, CHROMIUM_ARGS

BASE_DIR = Path(__file__).resolve().parent.parent
PY = sys.executable
RESULTS = BASE_DIR / "bench" / "results" / "live_lists.json"
PG_DB = "cs_bench_live"
PG_URL = f"postgres://postgres@127.0.0.1:5432/{PG_DB}"
PASSWORD = "demo1234"
SEEN_TIMEOUT_S = 15.0


class BenchInvalid(RuntimeError):
    """The run saw errors: its figures would be built on failures."""


@dataclass
class Errors:
    items: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, text: str) -> None:
        with self.lock:
            if len(self.items) < 200:
                self.items.append(text)

    def __len__(self) -> int:
        return len(self.items)


# --- the database and the server ------------------------------------------------------------------------
def _server_env(database_url: str, stats_dir: Path, interval_s: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="bench.live_settings",
        DATABASE_URL=database_url,
        CS_TODAY="2026-07-27",
        CS_AI_DRAFTS_ENABLED="false",  # the inquiry's reply draft is not what is measured here
        CS_SWEEP_EMBEDDED="0",
        CS_WARM_UP_ON_START="0",
        CS_API_THROTTLE="1000000/s",
        CS_CHAT_THROTTLE="1000000/s",
        CS_MODEL_BUDGET_PER_MINUTE="1000000",
        CS_MODEL_BUDGET_PER_DAY="1000000",
        CS_LIVE_BENCH_DIR=str(stats_dir),
        CS_LIVE_SSE_INTERVAL_S=str(interval_s),
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


def _pg_recreate() -> None:
    import psycopg

    with psycopg.connect(dbname="postgres", host="127.0.0.1", port=5432, user="postgres", autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (PG_DB,),
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{PG_DB}"')
        conn.execute(f'CREATE DATABASE "{PG_DB}"')


def _prepare(database_url: str, env: dict[str, str]) -> None:
    """Migrate and load the demo shop (operator and customer logins) without inquiries or knowledge."""
    for command in (
        [PY, "manage.py", "migrate", "--noinput", "-v", "0"],
        [
            PY,
            "-c",
            "import django; django.setup(); from fixtures.demo import demo_seed; "
            f"demo_seed(password={PASSWORD!r}, knowledge=False)",
        ],
    ):
        out = subprocess.run(command, cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise BenchInvalid(f"preparing {database_url} failed: {out.stderr[-2000:]}")


@dataclass
class Server:
    label: str
    popen: subprocess.Popen
    port: int
    log: Path

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)  # its own process group: only what we started
                self.popen.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.popen.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.popen.wait(timeout=10)


def _start(worker_class: str, workers: int, threads: int, env: dict[str, str], workdir: Path) -> Server:
    port = free_port()
    label = f"gunicorn -k {worker_class} -w {workers}" + (f" --threads {threads}" if worker_class == "gthread" else "")
    command = [
        PY, "-m", "gunicorn", "bench.live_wsgi:application", "-b", f"127.0.0.1:{port}",
        "-k", worker_class, "-w", str(workers), "--timeout", "60", "--graceful-timeout", "2",
        "--log-level", "warning",
        *(["--threads", str(threads)] if worker_class == "gthread" else []),
    ]  # fmt: skip
    log = workdir / f"gunicorn-{worker_class}-{port}.log"
    with open(log, "wb") as out:
        popen = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(label, popen, port, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not server.alive():
            raise BenchInvalid(f"{label} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if _get(port, "/healthz", {}, timeout=2)[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    server.stop()
    raise BenchInvalid(f"{label} did not answer /healthz")


# --- HTTP ----------------------------------------------------------------------------------------------
def _get(port: int, path: str, headers: dict[str, str], timeout: float = 15) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def _post_json(port: int, path: str, body: dict, headers: dict[str, str]) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(
            "POST",
            path,
            body=json.dumps(body, ensure_ascii=False).encode(),
            headers={"Content-Type": "application/json", **headers},
        )
        response = conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw or b"{}")
    finally:
        conn.close()


def _staff_cookie(port: int) -> str:
    """Sign in through the admin's login form, as a browser does; returns the Cookie header."""
    status, headers, body = _get(port, "/admin/login/", {})
    csrf = re.search(r"csrftoken=([^;]+)", headers.get("set-cookie", "")).group(1)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1).decode()
    form = urllib.parse.urlencode(
        {"username": "operator", "password": PASSWORD, "csrfmiddlewaretoken": token, "next": "/admin/"}
    )
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        conn.request(
            "POST",
            "/admin/login/",
            body=form,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={csrf}",
                "Referer": f"http://127.0.0.1:{port}/admin/login/",
            },
        )
        response = conn.getresponse()
        response.read()
        session = re.search(r"sessionid=([^;]+)", response.getheader("Set-Cookie") or "")
    finally:
        conn.close()
    if response.status != 302 or not session:
        raise BenchInvalid(f"admin login failed: {response.status}")
    return f"csrftoken={csrf}; sessionid={session.group(1)}"


def _customer_token(port: int) -> str:
    status, body = _post_json(port, "/api/auth/token/", {"username": "c003", "password": PASSWORD}, {})
    if status != 200:
        raise BenchInvalid(f"customer login failed: {status} {body}")
    return body["token"]


# --- the open lists ------------------------------------------------------------------------------------
LIVE_PATH = "/admin/live/?topics=tickets"
SSE_PATH = "/bench/live-sse/?topics=tickets"
LIST_PATH = "/admin/tickets/ticket/"


@dataclass
class Counters:
    requests: int = 0
    changes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, requests: int = 0, changes: int = 0) -> None:
        with self.lock:
            self.requests += requests
            self.changes += changes


class PollingList(threading.Thread):
    """One open list polling the change endpoint with If-None-Match every `interval_s`, from a random phase.
    With `on_change`, it is the watching list: a 200 makes it call back (which fetches the list page)."""

    def __init__(self, port, cookie, interval_s, stop, errors, counters, on_change=None):
        super().__init__(daemon=True)
        self.port, self.cookie, self.interval_s, self.stop_event = port, cookie, interval_s, stop
        self.errors, self.counters, self.on_change = errors, counters, on_change

    def run(self) -> None:
        etag = ""
        if self.stop_event.wait(random.uniform(0, self.interval_s)):
            return
        while not self.stop_event.is_set():
            started = time.monotonic()
            headers = {"Cookie": self.cookie, "Accept": "application/json"}
            if etag:
                headers["If-None-Match"] = etag
            try:
                status, response_headers, _ = _get(self.port, LIVE_PATH, headers)
            except OSError as exc:
                if not self.stop_event.is_set():  # not the harness stopping the server under a question
                    self.errors.add(f"poll: {type(exc).__name__}")
                status, response_headers = 0, {}
            self.counters.add(requests=1)
            if status == 200:
                changed = bool(etag)
                etag = response_headers.get("etag", "")
                if changed:
                    self.counters.add(changes=1)
                    if self.on_change:
                        self.on_change()
            elif status != 304 and status != 0:
                self.errors.add(f"poll: HTTP {status}")
            self.stop_event.wait(max(0.0, self.interval_s - (time.monotonic() - started)))


class StreamingList(threading.Thread):
    """One open list holding a server-sent-events stream; `on_change` as for PollingList."""

    def __init__(self, port, cookie, stop, errors, counters, on_change=None):
        super().__init__(daemon=True)
        self.port, self.cookie, self.stop_event = port, cookie, stop
        self.errors, self.counters, self.on_change = errors, counters, on_change
        self.connected = threading.Event()
        self.conn: http.client.HTTPConnection | None = None

    def run(self) -> None:
        try:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            self.conn.request("GET", SSE_PATH, headers={"Cookie": self.cookie, "Accept": "text/event-stream"})
            response = self.conn.getresponse()
            self.counters.add(requests=1)
            if response.status != 200:
                self.errors.add(f"stream: HTTP {response.status}")
                return
            event = ""
            while not self.stop_event.is_set():
                line = response.fp.readline()
                if not line:
                    if not self.stop_event.is_set():
                        self.errors.add("stream: closed by the server")
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line == "" and event:
                    if event == "hello":
                        self.connected.set()
                    elif event == "change":
                        self.counters.add(changes=1)
                        if self.on_change:
                            self.on_change()
                    event = ""
        except OSError as exc:
            if not self.stop_event.is_set():
                self.errors.add(f"stream: {type(exc).__name__}")

    def close(self) -> None:
        if self.conn is not None and self.conn.sock is not None:
            try:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Watcher:
    """The list that is timed: told of a change, it fetches the ticket list page and marks every awaited
    number it finds there as seen."""

    def __init__(self, port: int, cookie: str, errors: Errors) -> None:
        self.port, self.cookie, self.errors = port, cookie, errors
        self.awaited: dict[str, threading.Event] = {}
        self.seen_at: dict[str, float] = {}
        self.lock = threading.Lock()

    def expect(self, number: str) -> threading.Event:
        with self.lock:
            return self.awaited.setdefault(number, threading.Event())

    def on_change(self) -> None:
        try:
            status, _, body = _get(self.port, LIST_PATH, {"Cookie": self.cookie})
        except OSError as exc:
            self.errors.add(f"list page: {type(exc).__name__}")
            return
        if status != 200:
            self.errors.add(f"list page: HTTP {status}")
            return
        text = body.decode(errors="replace")
        now = time.monotonic()
        with self.lock:
            for number, event in self.awaited.items():
                if number in text and not event.is_set():
                    self.seen_at[number] = now
                    event.set()


# --- measuring ------------------------------------------------------------------------------------------
def _proc_cpu_s(pgid: int, db_name: str | None) -> tuple[float, float]:
    """CPU seconds so far of the server's process group, and of PostgreSQL backends serving `db_name`."""
    server = postgres = 0.0
    for proc in proc_stats():
        if proc.pgrp == pgid:
            server += proc.cpu_s
        elif db_name and proc.comm.startswith("postgres"):
            try:
                cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if f" {db_name} " in cmdline.replace("\0", " "):
                postgres += proc.cpu_s
    return server, postgres


def _queries(stats_dir: Path) -> int:
    total = 0
    for path in stats_dir.glob("queries-*"):
        try:
            total += int(path.read_text() or 0)
        except (OSError, ValueError):
            pass
    return total


def _idle_cost(server: Server, stats_dir: Path, counters: Counters, window_s: float, db_name: str | None) -> dict:
    cpu0, pg0, q0, r0 = *_proc_cpu_s(server.popen.pid, db_name), _queries(stats_dir), counters.requests
    own0 = sum(os.times()[:2])
    started = time.monotonic()
    time.sleep(window_s)
    elapsed = time.monotonic() - started
    time.sleep(0.6)  # the query counts are written every half second
    cpu1, pg1, q1, r1 = *_proc_cpu_s(server.popen.pid, db_name), _queries(stats_dir), counters.requests
    own1 = sum(os.times()[:2])
    return {
        "window_s": round(elapsed, 1),
        "server_cpu_share": round((cpu1 - cpu0) / elapsed, 3),
        "postgres_cpu_share": round((pg1 - pg0) / elapsed, 3) if db_name else None,
        "bench_clients_cpu_share": round((own1 - own0) / elapsed, 3),
        "queries_per_s": round((q1 - q0) / elapsed, 1),
        "requests_per_s": round((r1 - r0) / elapsed, 1),
    }


def _summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "median": round(statistics.median(values), 1) if values else None,
        "p95": round(percentile(values, 95), 1) if values else None,
        "max": round(max(values), 1) if values else None,
    }


def _inquiry_post(port: int, token: str, subject: str) -> tuple[int, dict]:
    """A customer's new delivery inquiry through the API: (HTTP status, body)."""
    return _post_json(
        port,
        "/api/tickets/",
        {"category": "DELIVERY", "subject": subject, "body": "언제 와요?"},
        {"Authorization": f"Token {token}"},
    )


def _delays(
    port: int, token: str, watcher: Watcher, samples: int, interval_s: float, errors: Errors
) -> tuple[list[float], list[float]]:
    """(commit-to-seen delays, the API's own time per inquiry) in ms."""
    delays, api = [], []
    for n in range(samples):
        time.sleep(random.uniform(0, interval_s))  # a random moment within the lists' cycle
        started = time.monotonic()
        status, body = _inquiry_post(port, token, f"벤치 문의 {n}")
        api.append((time.monotonic() - started) * 1000)
        if status != 201:
            errors.add(f"inquiry: HTTP {status}")
            continue
        number = body["ticket_id"]
        if not watcher.expect(number).wait(SEEN_TIMEOUT_S):
            errors.add(f"inquiry {number} not seen within {SEEN_TIMEOUT_S:.0f} s")
            continue
        delays.append((watcher.seen_at[number] - started) * 1000)
    return delays, api


def _browser_delays(port: int, token: str, samples: int, interval_s: float, errors: Errors) -> list[float]:
    """The ticket list in headless Chromium with its own script and interval: from just before the POST to the
    row on screen."""
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{port}"
    delays = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="ko-KR")
            page.goto(f"{base}/admin/login/?next={LIST_PATH}")
            page.fill("#id_username", "operator")
            page.fill("#id_password", PASSWORD)
            page.click("input[type=submit]")
            page.wait_for_url(f"{base}{LIST_PATH}")
            page.mouse.move(2, 2)
            if not page.evaluate("() => !!document.querySelector('script[src$=\"common/live.js\"]')"):
                raise BenchInvalid("the ticket list page has no live script")
            page.wait_for_timeout(interval_s * 1000)
            for n in range(samples):
                page.wait_for_timeout(random.uniform(0, interval_s) * 1000)
                started = time.monotonic()
                status, body = _inquiry_post(port, token, f"브라우저 문의 {n}")
                if status != 201:
                    errors.add(f"inquiry: HTTP {status}")
                    continue
                number = body["ticket_id"]
                try:
                    page.wait_for_function(
                        "n => (document.querySelector('#result_list') || {}).textContent?.includes(n)",
                        arg=number,
                        polling=20,
                        timeout=SEEN_TIMEOUT_S * 1000,
                    )
                except Exception as exc:  # Playwright's TimeoutError
                    errors.add(f"browser: {number} not on screen ({type(exc).__name__})")
                    continue
                delays.append((time.monotonic() - started) * 1000)
        finally:
            browser.close()
    return delays


def _sse_on_sync_workers(env: dict[str, str], workdir: Path, workers: int, errors: Errors) -> dict:
    """Open as many streams as there are sync workers, then ask for /healthz: it waits for a free worker."""
    server = _start("sync", workers, 0, env, workdir)
    stop = threading.Event()
    streams: list[StreamingList] = []
    try:
        cookie = _staff_cookie(server.port)
        streams = [StreamingList(server.port, cookie, stop, errors, Counters()) for _ in range(workers)]
        for stream in streams:
            stream.start()
        for stream in streams:
            stream.connected.wait(10)
        opened = sum(1 for s in streams if s.connected.is_set())
        if opened != workers:
            errors.add(f"sync workers: {opened} of {workers} streams opened")
        started = time.monotonic()
        try:
            answered = _get(server.port, "/healthz", {}, timeout=5)[0] == 200
        except OSError:
            answered = False
        return {
            "server": server.label,
            "streams_open": opened,
            "healthz_answered_within_5_s": answered,
            "waited_s": round(time.monotonic() - started, 1),
        }
    finally:
        stop.set()
        for stream in streams:
            stream.close()
        server.stop()


def _mechanism(
    name: str,
    *,
    worker_class: str,
    workers: int,
    threads: int,
    env: dict[str, str],
    workdir: Path,
    lists: int,
    interval_s: float,
    window_s: float,
    samples: int,
    browser_samples: int,
    db_name: str | None,
    errors: Errors,
) -> dict:
    stats_dir = workdir / f"stats-{name}-{worker_class}"
    stats_dir.mkdir()
    server = _start(worker_class, workers, threads, {**env, "CS_LIVE_BENCH_DIR": str(stats_dir)}, workdir)
    stop = threading.Event()
    clients: list[threading.Thread] = []
    counters = Counters()
    try:
        cookie = _staff_cookie(server.port)
        token = _customer_token(server.port)
        watcher = Watcher(server.port, cookie, errors)
        for n in range(lists + 1):  # the open lists, and the one that is timed
            on_change = watcher.on_change if n == lists else None
            if name == "poll":
                clients.append(PollingList(server.port, cookie, interval_s, stop, errors, counters, on_change))
            else:
                clients.append(StreamingList(server.port, cookie, stop, errors, counters, on_change))
        for client in clients:
            client.start()
        if name == "sse":
            for client in clients:
                if not client.connected.wait(30):
                    errors.add("stream: no hello within 30 s")
                    break
        time.sleep(interval_s * 2)  # every list past its first question
        if not server.alive():
            raise BenchInvalid(f"{server.label} exited: {server.log.read_text(errors='replace')[-2000:]}")
        result = {
            "server": server.label,
            "lists": lists,
            "idle": _idle_cost(server, stats_dir, counters, window_s, db_name),
        }
        if counters.changes:
            errors.add(f"{name}: {counters.changes} change(s) seen while nothing changed")
        delays, api = _delays(server.port, token, watcher, samples, interval_s, errors)
        result["delay_ms"] = _summary(delays)
        result["api_post_ms"] = _summary(api)  # included in the delay: the inquiry's own POST
        if browser_samples:
            result["browser_delay_ms"] = _summary(
                _browser_delays(server.port, token, browser_samples, interval_s, errors)
            )
        if not server.alive():
            errors.add(f"{server.label} exited during the run")
        return result
    finally:
        stop.set()
        for client in clients:
            if isinstance(client, StreamingList):
                client.close()
        for client in clients:
            client.join(timeout=20)
        server.stop()


def _stop_on_errors(errors: Errors) -> None:
    if len(errors):
        more = f" … ({len(errors)} errors)" if len(errors) > 20 else ""
        raise BenchInvalid("; ".join(errors.items[:20]) + more)


def _log(text: str) -> None:
    print(f"{datetime.now().strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def run(
    *,
    lists: int = 200,
    interval_s: float = 2.0,
    window_s: float = 30.0,
    samples: int = 20,
    browser_samples: int = 20,
    database_url: str | None = None,
    also_poll_gthread: bool = False,
    sync_workers: int = 4,
    sse_threads: int = 0,
) -> dict:
    """Every figure, or BenchInvalid if anything failed. `database_url` None: a scratch SQLite file."""
    errors = Errors()
    workdir = Path(tempfile.mkdtemp(prefix="cs-live-bench-"))
    try:
        if database_url is None:
            database_url = f"sqlite:///{workdir / 'live.sqlite3'}"
            db_name = None
        else:
            db_name = urllib.parse.urlsplit(database_url).path.lstrip("/")
        env = _server_env(database_url, workdir, interval_s)
        _log(f"preparing {'PostgreSQL ' + db_name if db_name else 'a scratch SQLite file'}")
        _prepare(database_url, env)
        common = dict(
            env=env, workdir=workdir, lists=lists, interval_s=interval_s, window_s=window_s, samples=samples,
            db_name=db_name, errors=errors,
        )  # fmt: skip
        threads = sse_threads or lists + 20  # each worker can hold every stream: accepts are not balanced
        result: dict = {
            "date": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
            "database": "postgresql" if db_name else "sqlite",
            "cpu_count": os.cpu_count(),
            "loadavg_before": [round(x, 2) for x in os.getloadavg()],
            "lists": lists,
            "interval_s": interval_s,
            "mechanisms": {},
        }
        mechanisms = result["mechanisms"]
        plan = [("poll", "poll", "sync", sync_workers, 0, browser_samples)]
        if also_poll_gthread:
            plan.append(("poll_gthread", "poll", "gthread", 2, threads, 0))
        plan.append(("sse", "sse", "gthread", 2, threads, 0))
        for key, name, worker_class, workers, n_threads, browser in plan:
            _log(f"{name}, {lists} lists, gunicorn {worker_class}")
            mechanisms[key] = _mechanism(
                name, worker_class=worker_class, workers=workers, threads=n_threads, browser_samples=browser, **common
            )
            _stop_on_errors(errors)  # no figure is measured after a failure, and none is given
            if mechanisms[key]["delay_ms"]["n"] != samples:
                raise BenchInvalid(f"{key}: {mechanisms[key]['delay_ms']['n']} of {samples} delays measured")
        _log("server-sent events on sync workers")
        result["sse_on_sync_workers"] = _sse_on_sync_workers(env, workdir, sync_workers, errors)
        _stop_on_errors(errors)
        result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
        result["valid"] = True
        return result
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.live_lists", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 lists, SQLite, a few samples")
    parser.add_argument("--lists", type=int, default=None)
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between a list's questions")
    parser.add_argument("--window", type=float, default=None, help="seconds of idle cost measured")
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--browser-samples", type=int, default=None, help="0: no browser")
    parser.add_argument("--sqlite", action="store_true", help="a scratch SQLite file instead of PostgreSQL")
    parser.add_argument("--also-poll-gthread", action="store_true", help="polling on the threaded server too")
    parser.add_argument("--out", default=None, help=f"where to write the JSON (default {RESULTS}, not in --quick)")
    args = parser.parse_args(argv)
    quick = args.quick
    sqlite = args.sqlite or quick
    if not sqlite:
        _pg_recreate()
    try:
        result = run(
            lists=args.lists or (10 if quick else 200),
            interval_s=args.interval,
            window_s=args.window or (4.0 if quick else 30.0),
            samples=args.samples or (3 if quick else 20),
            browser_samples=args.browser_samples if args.browser_samples is not None else (2 if quick else 20),
            database_url=None if sqlite else PG_URL,
            also_poll_gthread=args.also_poll_gthread,
        )
    except BenchInvalid as exc:
        print(f"INVALID — no figures: {exc}", file=sys.stderr)
        print(json.dumps({"valid": False, "errors": str(exc)}, ensure_ascii=False))
        return 1
    out = Path(args.out) if args.out else (None if quick else RESULTS)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

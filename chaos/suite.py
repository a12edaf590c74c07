"""The fault scenarios, the load during each, and the invariants checked after each.

`run_suite(database=..., timings=...)` needs Django already set up in this process on the same PostgreSQL
database (directly, not through the proxy: the checks must work while the stack's database is cut), with demo
data loaded. It starts the stack (own Redis, proxy, scripted model, gunicorn, a Celery worker with beat),
runs every scenario, stops everything in `finally`, and returns one `ScenarioResult` per scenario.

Each scenario: start a bounded load through the real HTTP API, inject the fault, keep the load going for the
fault's duration, end the fault (restore the proxy, restart Redis, let the supervisor restart the worker,
heal the model), then poll the invariants with no further action until they hold or the deadline passes:

- stored: every customer message answered 2xx is in the database;
- drafts: every latest customer input on an open ticket has exactly one complete draft (GENERATED, every stage
  DONE or SKIPPED) — a FAILED stage is allowed during the fault, and must be completed by the automatic retry;
- no duplicate drafts (per input, and live GENERATED per ticket), no duplicate pending refunds per order;
- a refund decided by several operators at once is executed once.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

from chaos.model import model_start
from chaos.processes import BASE_DIR, Proc, RedisServer, gunicorn_start, worker_start
from chaos.proxy import TcpProxy

CUSTOMERS = [f"C{n:03d}" for n in range(1, 11)]
TODAY = "2026-07-27"


@dataclass(frozen=True)
class Timings:
    name: str
    model_latency_s: float
    llm_timeout_s: float
    worker_down_s: float
    redis_down_s: float
    db_cut_s: float
    model_error_s: float
    model_hang_s: float
    task_soft_time_limit_s: int
    task_time_limit_s: int
    lease_s: int
    visibility_s: int
    sweep_interval_s: int
    sweep_grace_s: int
    ops_per_scenario: int
    load_threads: int
    decide_concurrency: int
    drain_s: float  # time allowed, beyond lease + sweep interval, for the backlog's drafts to be written

    def order_ok(self) -> bool:
        """Time limit < lease < visibility timeout: a live run never loses its lease, and a redelivered task
        never meets a lease its own dead predecessor still holds for longer than the broker waits."""
        return self.task_time_limit_s < self.lease_s < self.visibility_s

    @property
    def bound_s(self) -> int:
        return self.lease_s + self.sweep_interval_s


FULL = Timings(
    name="make chaos",
    model_latency_s=0.8,
    llm_timeout_s=5,
    worker_down_s=8,
    redis_down_s=20,
    db_cut_s=15,
    model_error_s=15,
    model_hang_s=15,
    task_soft_time_limit_s=40,
    task_time_limit_s=45,
    lease_s=60,
    visibility_s=330,  # above CELERY_TASK_TIME_LIMIT (300 s) too: no task is ever delivered twice while running
    sweep_interval_s=15,
    sweep_grace_s=10,
    ops_per_scenario=40,
    load_threads=4,
    decide_concurrency=10,
    drain_s=90,
)
CI = Timings(
    name="CI (short timings)",
    model_latency_s=0.1,
    llm_timeout_s=2,
    worker_down_s=3,
    redis_down_s=5,
    db_cut_s=5,
    model_error_s=4,
    model_hang_s=4,
    task_soft_time_limit_s=15,
    task_time_limit_s=18,
    lease_s=24,
    visibility_s=330,
    sweep_interval_s=5,
    sweep_grace_s=3,
    ops_per_scenario=12,
    load_threads=3,
    decide_concurrency=6,
    drain_s=45,
)


# Tokens carry the password's session hash, which is keyed by SECRET_KEY: the harness issues them with the key
# the stack runs with.
STACK_SECRET_KEY = "chaos-suite-not-a-secret-0123456789-abcdefghijklmnopqrstuvwxyz"


def stack_env(timings: Timings, *, database_url: str, redis_url: str, model_url: str) -> dict[str, str]:
    """Production settings with what a loopback run needs: plain HTTP, a local host name, short timings."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cs_project.settings.production",
        "SECRET_KEY": STACK_SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DEBUG": "false",
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "OPENAI_BASE_URL": model_url,
        "OPENAI_API_KEY": "chaos",
        "CS_LLM_MODEL": "chaos-fast",
        "CS_LLM_FALLBACK_MODEL": "chaos-strong",
        "CS_LLM_TIMEOUT_S": str(timings.llm_timeout_s),
        "CS_TODAY": TODAY,
        "CS_CHAT_THROTTLE": "100000/min",
        "CS_API_THROTTLE": "100000/min",
        "CS_TICKET_MESSAGE_THROTTLE": "100000/min",
        # The load sends a few customers' worth of traffic in seconds: the per-customer model budget would
        # answer 429 and the suite would measure it instead of recovery.
        "CS_MODEL_BUDGET_PER_MINUTE": "1000000",
        "CS_MODEL_BUDGET_PER_DAY": "1000000",
        "CS_OUTAGE_RETRY_AFTER_S": "5",
        "CS_AI_LEASE_S": str(timings.lease_s),
        "CELERY_VISIBILITY_TIMEOUT_S": str(timings.visibility_s),
        "CELERY_RESTORE_INTERVAL_S": "2",
        # The self-healing settings, short so a scenario heals within the run: the draft task's time limits and the
        # periodic sweep.
        "CS_AI_TASK_SOFT_TIME_LIMIT_S": str(timings.task_soft_time_limit_s),
        "CS_AI_TASK_TIME_LIMIT_S": str(timings.task_time_limit_s),
        "CS_SWEEP_INTERVAL_S": str(timings.sweep_interval_s),
        "CS_SWEEP_GRACE_S": str(timings.sweep_grace_s),
        "CS_AI_FAILED_RETRY_BASE_S": str(timings.sweep_interval_s),
        "CS_AI_TRANSIENT_BACKOFF_MAX_S": str(timings.sweep_interval_s),
        "CS_OUTBOX_BACKOFF_BASE_S": "1",
        "CS_OUTBOX_BACKOFF_MAX_S": str(timings.sweep_interval_s),
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("CS_TEST_REDIS_URL", None)
    return env


def database_url(settings_dict: dict, *, port: int | None = None) -> str:
    user = quote(settings_dict.get("USER") or "postgres", safe="")
    password = settings_dict.get("PASSWORD")
    auth = f"{user}:{quote(password, safe='')}@" if password else f"{user}@"
    return f"postgres://{auth}127.0.0.1:{port or settings_dict.get('PORT') or 5432}/{quote(settings_dict['NAME'])}"


# --- HTTP ------------------------------------------------------------------------------------------
@dataclass
class Answer:
    op: str
    status: int  # 0: no HTTP answer at all (connection refused/reset, timeout)
    content_type: str = ""
    retry_after: str | None = None
    body: dict | None = None
    token: str = ""
    during_fault: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def label(self) -> str:
        if self.status == 0:
            return "no answer"
        if "json" not in self.content_type:
            return f"{self.status} NOT JSON"
        if self.status == 503 and not self.retry_after:
            return "503 no Retry-After"
        if self.status >= 500 and self.status != 503:
            return f"{self.status} JSON"
        return str(self.status)

    @property
    def violation(self) -> bool:
        return (
            self.status == 0
            or self.label.endswith(("NOT JSON", "no Retry-After"))
            or (self.status >= 500 and self.status != 503)
        )


class Api:
    def __init__(self, port: int, *, timeout: float = 40) -> None:
        self.port = port
        self.timeout = timeout

    def call(self, method: str, path: str, payload: dict | None = None, *, token: str | None = None) -> Answer:
        headers = {"Accept": "application/json", "Host": "127.0.0.1"}
        body = None
        if payload is not None:
            body = json.dumps(payload, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Token {token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            content_type = response.getheader("Content-Type") or ""
            parsed = None
            if "json" in content_type:
                try:
                    parsed = json.loads(raw or b"null")
                except ValueError:
                    content_type = "broken json"
            return Answer(path, response.status, content_type, response.getheader("Retry-After"), parsed)
        except (OSError, http.client.HTTPException):
            return Answer(path, 0)
        finally:
            conn.close()


# --- load ------------------------------------------------------------------------------------------
class Load:
    """A bounded mix of customer traffic from a few threads: new inquiries, follow-ups on the customer's own
    tickets, refund requests through the chat agent (some repeated, to provoke duplicates)."""

    KINDS = ("inquiry", "followup", "refund", "followup", "inquiry", "refund")

    def __init__(self, api: Api, tokens: dict[str, str], refundable: list[tuple[str, str]], scenario: str) -> None:
        self.api = api
        self.tokens = tokens
        self.refundable = refundable
        self.scenario = scenario
        self.answers: list[Answer] = []
        self.tickets: dict[str, list[str]] = {c: [] for c in tokens}
        self._lock = threading.Lock()
        self._n = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.fault_on = False

    def _next(self, limit: int) -> int | None:
        with self._lock:
            if self._n >= limit:
                return None
            self._n += 1
            return self._n

    def start(self, *, limit: int, threads: int, pace_s: float) -> None:
        for index in range(threads):
            thread = threading.Thread(target=self._run, args=(limit, pace_s), name=f"chaos-load-{index}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _run(self, limit: int, pace_s: float) -> None:
        while not self._stop.is_set():
            n = self._next(limit)
            if n is None:
                return
            self._one(n)
            self._stop.wait(pace_s)

    def stop(self, timeout: float = 90) -> None:
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.1, deadline - time.monotonic()))

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.1, deadline - time.monotonic()))

    def _one(self, n: int) -> None:
        customer = CUSTOMERS[n % len(CUSTOMERS)]
        token = self.tokens[customer]
        kind = self.KINDS[n % len(self.KINDS)]
        marker = f"[chaos:{self.scenario}:{n}]"
        during = self.fault_on
        with self._lock:
            own = list(self.tickets[customer])
        if kind == "followup" and not own:
            kind = "inquiry"
        if kind == "inquiry":
            answer = self.api.call(
                "POST",
                "/api/tickets/",
                {"category": "배송", "subject": f"배송 문의 {n}", "body": f"배송이 언제 오나요? {marker}"},
                token=token,
            )
            if answer.ok and answer.body:
                with self._lock:
                    self.tickets[customer].append(answer.body["ticket_id"])
        elif kind == "followup":
            ticket = own[n % len(own)]
            answer = self.api.call(
                "POST", f"/api/tickets/{ticket}/messages/", {"body": f"추가 문의입니다. {marker}"}, token=token
            )
        else:
            pairs = [p for p in self.refundable if p[0] == customer] or self.refundable
            customer, order_id = pairs[n % len(pairs)]
            answer = self.api.call(
                "POST",
                "/api/chat/",
                {"message": f"{order_id} 주문 환불해 주세요. 상품하자예요. {marker}"},
                token=self.tokens[customer],
            )
        answer.op = kind
        answer.token = marker
        answer.during_fault = during
        with self._lock:
            self.answers.append(answer)


# --- invariants ------------------------------------------------------------------------------------
@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


def _complete(draft) -> bool:
    from drafts.models import Draft, StageState

    return draft.status == Draft.Status.GENERATED and all(
        s in (StageState.DONE, StageState.SKIPPED) for s in draft.stage_states
    )


def check_stored(answers: list[Answer]) -> Check:
    from django.db.models import Q

    from chat.models import ChatMessage
    from tickets.models import TicketMessage

    missing = []
    for answer in answers:
        if not answer.ok:
            continue
        if answer.op == "refund":
            found = ChatMessage.objects.filter(role=ChatMessage.Role.CUSTOMER, content__contains=answer.token).exists()
        else:
            found = TicketMessage.objects.filter(Q(body__contains=answer.token), author_type="CUSTOMER").exists()
        if not found:
            missing.append(answer.token)
    total = sum(a.ok for a in answers)
    return Check("2xx messages stored", not missing, f"{total - len(missing)}/{total}" + _examples(missing))


def check_drafts() -> tuple[Check, dict[str, list[int]]]:
    from drafts.models import Draft
    from tickets.models import Ticket
    from tickets.selectors import with_latest_customer_message

    latest = dict(
        with_latest_customer_message(Ticket.objects.filter(status=Ticket.Status.OPEN))
        .filter(latest_customer_message_id__isnull=False)
        .values_list("id", "latest_customer_message_id")
    )
    drafts: dict[int, list] = {}
    for draft in Draft.objects.filter(source_message_id__in=latest.values()):
        drafts.setdefault(draft.source_message_id, []).append(draft)
    states: dict[str, list[int]] = {"complete": [], "missing": [], "failed": [], "unfinished": [], "closed": []}
    for ticket_id, message_id in latest.items():
        found = drafts.get(message_id, [])
        if not found:
            states["missing"].append(ticket_id)
        elif len(found) == 1 and _complete(found[0]):
            states["complete"].append(ticket_id)
        elif any(d.has_failure for d in found):
            states["failed"].append(ticket_id)
        elif any(d.is_closed for d in found):
            states["closed"].append(ticket_id)
        else:
            states["unfinished"].append(ticket_id)
    bad = {k: v for k, v in states.items() if k != "complete" and v}
    detail = f"{len(states['complete'])}/{len(latest)} complete" + "".join(
        f", {k} {len(v)}" + _examples([f"T{t}" for t in v]) for k, v in bad.items()
    )
    return Check("one complete draft per latest input", not bad, detail), states


def check_duplicates() -> list[Check]:
    from django.db.models import Count

    from actions.models import ActionRecord
    from drafts.models import Draft

    per_input = Draft.objects.values("ticket_id", "source_message_id").annotate(n=Count("id")).filter(n__gt=1).count()
    live = Draft.objects.filter(status="GENERATED").values("ticket_id").annotate(n=Count("id")).filter(n__gt=1).count()
    pending = (
        ActionRecord.objects.filter(status=ActionRecord.Status.PENDING, kind__in=ActionRecord.MONEY_KINDS)
        .values("order_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    return [
        Check(
            "no duplicate drafts",
            per_input == 0 and live == 0,
            f"inputs with >1 draft {per_input}, tickets with >1 live draft {live}",
        ),  # fmt: skip
        Check("no duplicate pending refunds", pending == 0, f"orders with >1 pending {pending}"),
    ]


def _pending_refund(since=None):
    from actions.models import ActionRecord

    pending = ActionRecord.objects.filter(status=ActionRecord.Status.PENDING, kind__in=ActionRecord.MONEY_KINDS)
    if since is not None:
        pending = pending.filter(created_at__gte=since)
    return pending.order_by("id").first()


def decide_concurrently(api: Api, operator_token: str, since, concurrency: int, tokens: dict[str, str]) -> Check:
    """Several operators approve the same pending refund at once: exactly one execution.

    The refund is one the load created during this scenario; when there is none (the model was down for
    every refund request), the customer asks again through the chat now that the system has recovered."""
    from actions.models import ActionEvent, ActionRecord

    record = _pending_refund(since) or _pending_refund()
    asked = ""
    if record is None:
        for customer, order_id in refundable_orders():
            api.call("POST", "/api/chat/", {"message": f"{order_id} 주문 환불해 주세요. 상품하자예요."},
                     token=tokens[customer])  # fmt: skip
            record = _pending_refund()
            if record is not None:
                asked = " (requested after recovery)"
                break
    if record is None:
        return Check("refund executed once", False, "no pending refund to decide, and none could be requested")
    barrier = threading.Barrier(concurrency)
    answers: list[int] = []
    lock = threading.Lock()

    def decide() -> None:
        barrier.wait(timeout=30)
        answer = api.call("POST", f"/api/ops/actions/{record.number}/decide/", {"approve": True}, token=operator_token)
        with lock:
            answers.append(answer.status)

    threads = [threading.Thread(target=decide, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    executed = ActionEvent.objects.filter(record=record, to_status=ActionRecord.Status.APPROVED).count()
    statuses = dict(sorted(Counter(answers).items()))
    return Check("refund executed once", executed == 1 and statuses.get(200) == 1, f"{record.number}{asked}: "
                 f"executed {executed}x, answers {statuses}")  # fmt: skip


def _examples(items: list) -> str:
    return f" (e.g. {', '.join(str(i) for i in items[:3])})" if items else ""


# --- scenarios -------------------------------------------------------------------------------------
@dataclass
class ScenarioResult:
    name: str
    fault: str
    answers: Counter = field(default_factory=Counter)
    violations: int = 0
    checks: list[Check] = field(default_factory=list)
    recovered_s: float | None = None
    deadline_s: float = 0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.violations == 0 and all(c.ok for c in self.checks) and self.recovered_s is not None


EFFECTIVE_LIMITS = """
import json, django
django.setup()
from django.conf import settings
from drafts.tasks import generate_draft_task as task
print(json.dumps({
    "time_limit": task.time_limit or settings.CELERY_TASK_TIME_LIMIT,
    "lease": settings.CS_AI_LEASE_S,
    "visibility": settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"],
    "beat": sorted(getattr(settings, "CELERY_BEAT_SCHEDULE", {}) or {}),
}))
"""


def effective_limits(env: dict[str, str]) -> dict:
    """What the workers will really run with (the task's own time limit wins over the global one)."""
    out = subprocess.run(
        [sys.executable, "-c", EFFECTIVE_LIMITS], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    if out.returncode != 0:
        raise RuntimeError(f"could not read the effective limits:\n{out.stderr[-2000:]}")
    limits = json.loads(out.stdout.strip().splitlines()[-1])
    # The project's own startup check (drafts.E001) on the same settings: it also covers every other task.
    check = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    limits["system_check"] = "ok" if check.returncode == 0 else (check.stderr.strip().splitlines() or ["failed"])[-1]
    limits["order_ok"] = limits["time_limit"] < limits["lease"] < limits["visibility"] and check.returncode == 0
    return limits


class Stack:
    """Everything the suite runs, started once; scenarios break and heal parts of it."""

    def __init__(self, *, settings_dict: dict, timings: Timings, log_dir: Path) -> None:
        self.timings = timings
        self.log_dir = log_dir
        self.settings_dict = settings_dict
        self.procs: list[Proc] = []
        self.proxy: TcpProxy | None = None
        self.redis: RedisServer | None = None
        self.model = None
        self.switch = None
        self.worker: Proc | None = None
        self.web: Proc | None = None
        self.env: dict[str, str] = {}
        self._workers = 0
        self.limits: dict = {}

    def start(self) -> None:
        t = self.timings
        self.proxy = TcpProxy("127.0.0.1", int(self.settings_dict.get("PORT") or 5432))
        self.redis = RedisServer(self.log_dir / "redis-data", self.log_dir)
        self.redis.start(empty=True)
        self.model, self.switch = model_start(latency_s=t.model_latency_s, hang_s=max(3 * t.llm_timeout_s, 10))
        self.env = stack_env(
            t,
            database_url=database_url(self.settings_dict, port=self.proxy.port),
            redis_url=self.redis.url,
            model_url=self.model.base_url,
        )
        self.limits = effective_limits(self.env)
        self.web = gunicorn_start(self.env, self.log_dir)
        self.procs.append(self.web)
        self.worker_restart()

    def worker_restart(self) -> Proc:
        """What a supervisor (systemd Restart=always, a container restart policy) does for a dead worker."""
        self._workers += 1
        self.worker = worker_start(self.env, self.log_dir, name=f"w{self._workers}")
        self.procs.append(self.worker)
        deadline = time.monotonic() + 90
        while "ready." not in self.worker.tail(200):
            if not self.worker.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"worker did not start:\n{self.worker.tail()}")
            time.sleep(0.3)
        return self.worker

    def supervise(self, result: ScenarioResult) -> None:
        """A worker that exited by itself (kombu can raise an unrecoverable error while Redis is gone) is
        restarted, as its supervisor would; the table notes it. A worker restart is part of the production
        setup (README: run workers under a supervisor), not a human action."""
        if self.worker is not None and not self.worker.alive():
            self.worker_restart()
            result.notes.append("the worker exited during the fault; its supervisor restarted it")

    def stop(self) -> None:
        for proc in reversed(self.procs):
            try:
                proc.stop()
            except Exception:  # noqa: BLE001 - keep stopping the others
                proc.kill()
        if self.redis is not None:
            self.redis.stop()
        if self.model is not None:
            self.model.stop()
        if self.proxy is not None:
            self.proxy.close()


def _wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.3) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def _draft_preparing(since) -> bool:
    from drafts.models import Draft

    return Draft.objects.filter(status=Draft.Status.PREPARING, created_at__gte=since).exists()


def _fault_worker_kill(stack: Stack, load: Load, result: ScenarioResult, since) -> None:
    if not _wait_for(lambda: _draft_preparing(since), 30):
        result.notes.append("no draft was mid-generation when the worker was killed")
    stack.worker.kill()
    load.fault_on = True
    time.sleep(stack.timings.worker_down_s)
    load.fault_on = False
    started = time.monotonic()
    stack.worker_restart()
    result.notes.append(f"replacement worker ready {time.monotonic() - started:.0f} s after its start")


def _fault_redis(empty: bool):
    def fault(stack: Stack, load: Load, result: ScenarioResult, since) -> None:
        _wait_for(lambda: _draft_preparing(since), 15)
        stack.redis.kill()
        load.fault_on = True
        time.sleep(stack.timings.redis_down_s)
        load.fault_on = False
        stack.redis.start(empty=empty)

    return fault


def _fault_db_cut(stack: Stack, load: Load, result: ScenarioResult, since) -> None:
    _wait_for(lambda: _draft_preparing(since), 15)
    dropped = stack.proxy.cut()
    result.notes.append(f"{dropped} open database connections cut")
    load.fault_on = True
    time.sleep(stack.timings.db_cut_s)
    load.fault_on = False
    stack.proxy.restore()


def _fault_model(stack: Stack, load: Load, result: ScenarioResult, since) -> None:
    from drafts.models import Draft

    stack.switch.set("error")
    load.fault_on = True
    time.sleep(stack.timings.model_error_s)
    stack.switch.set("hang")
    time.sleep(stack.timings.model_hang_s)
    load.fault_on = False
    failed = sum(d.has_failure for d in Draft.objects.filter(created_at__gte=since))
    result.notes.append(f"{failed} drafts visibly FAILED during the outage")
    stack.switch.set("ok")


SCENARIOS: list[tuple[str, str, Callable]] = [
    ("worker-sigkill", "worker SIGKILL mid-generation, restarted by its supervisor", _fault_worker_kill),
    ("redis-empty", "Redis killed, restarted empty", _fault_redis(empty=True)),
    ("redis-aof", "Redis killed, restarted with its appendonly file", _fault_redis(empty=False)),
    ("db-cut", "database connections cut at the proxy", _fault_db_cut),
    ("model-outage", "model answers 500, then hangs, then recovers", _fault_model),
]


def api_token(username: str) -> str:
    """The API token the chat page would get at login (written directly: the pytest entry's users have test
    password hashes that the production settings do not accept)."""
    from django.contrib.auth import get_user_model
    from django.test.utils import override_settings

    from accounts.services import token_issue

    user = get_user_model().objects.get(username=username)
    with override_settings(SECRET_KEY=STACK_SECRET_KEY):
        return token_issue(user=user, actor=user)[1]


def refundable_orders() -> list[tuple[str, str]]:
    from datetime import date

    from actions import policy
    from actions.selectors import return_windows
    from orders.models import Order

    today = date.fromisoformat(TODAY)
    out = []
    for order in Order.objects.order_by("pk"):
        decision = policy.refund_decision(
            status=order.status,
            delivered_at=order.delivered_at,
            today=today,
            reason_category="DEFECT",
            windows=return_windows(),
        )
        if decision.allowed:
            out.append((order.customer_id, order.pk))
    return out


def run_scenario(stack: Stack, name: str, fault_name: str, fault: Callable, *, tokens, operator, refundable):
    from django.db import close_old_connections
    from django.utils import timezone

    t = stack.timings
    api = Api(stack.web.info["port"])
    result = ScenarioResult(name, fault_name)
    since = timezone.now() - timedelta(seconds=1)
    load = Load(api, tokens, refundable, name)
    # Spread the bounded load over the fault's window (and a little before and after it).
    window = {"worker-sigkill": t.worker_down_s + 5, "db-cut": t.db_cut_s + 3, "model-outage": t.model_error_s
              + t.model_hang_s}.get(name, t.redis_down_s + 3)  # fmt: skip
    load.start(
        limit=t.ops_per_scenario, threads=t.load_threads, pace_s=max(0.2, window * t.load_threads / t.ops_per_scenario)
    )
    try:
        fault(stack, load, result, since)
    finally:
        healed = time.monotonic()
        load.join(timeout=60)
        load.stop()
    stack.supervise(result)
    close_old_connections()
    for answer in load.answers:
        key = ("during " if answer.during_fault else "") + answer.label
        result.answers[key] += 1
        result.violations += answer.violation
    result.deadline_s = t.bound_s + t.drain_s
    # No human action from here: only time passes, and the invariants are polled.
    while True:
        elapsed = time.monotonic() - healed
        checks = [check_stored(load.answers), check_drafts()[0], *check_duplicates()]
        if all(c.ok for c in checks):
            result.recovered_s = round(elapsed, 1)
            break
        if elapsed > result.deadline_s:
            break
        time.sleep(1)
        stack.supervise(result)
        close_old_connections()
    result.checks = checks
    result.checks.append(decide_concurrently(api, operator, since, t.decide_concurrency, tokens))
    return result


def run_suite(*, settings_dict: dict, timings: Timings, only: list[str] | None = None, log_dir: Path | None = None,
              progress: Callable[[str], None] = lambda _m: None) -> tuple[list[ScenarioResult], dict]:  # fmt: skip
    from actions.models import ActionRecord  # noqa: F401 - apps are ready

    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="chaos-", dir=BASE_DIR / "var"))
    stack = Stack(settings_dict=settings_dict, timings=timings, log_dir=log_dir)
    results: list[ScenarioResult] = []
    try:
        progress(f"starting the stack (logs in {log_dir})")
        stack.start()
        progress(f"effective limits: {stack.limits}")
        tokens = {c: api_token(c.lower()) for c in CUSTOMERS}
        operator = api_token("operator")
        for name, fault_name, fault in SCENARIOS:
            if only and name not in only:
                continue
            progress(f"scenario {name}: {fault_name}")
            result = run_scenario(
                stack, name, fault_name, fault, tokens=tokens, operator=operator, refundable=refundable_orders()
            )
            progress(f"  -> {'ok' if result.ok else 'FAILED'} recovered={result.recovered_s}")
            results.append(result)
    finally:
        stack.stop()
    return results, stack.limits

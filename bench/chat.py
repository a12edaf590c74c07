"""Part 2 — chat overhead: `POST /api/chat/` (a turn with exactly one tool call, model latency 0) against the
authenticated constant endpoint `GET /api/ping/`, both under gunicorn on PostgreSQL, same clients."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
from dataclasses import dataclass, field

from bench.data import customer_order
from bench.env import cpu_busy_between, cpu_by_component, cpu_times
from bench.report import allowed_speedup, ratio, summary

PASSWORD_ENV = "CS_DEMO_PASSWORD"


@dataclass
class Client:
    """One keep-alive connection with a token, as a chat page or app holds it."""

    port: int
    token: str
    order_id: str
    index: int = 0
    conn: http.client.HTTPConnection | None = None
    counter: int = 0

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        headers = {"Authorization": f"Token {self.token}", "Connection": "keep-alive"}
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def chat_body(self) -> dict:
        # A new address every turn: the change succeeds (a DONE record and its event are written) each time.
        self.counter += 1
        address = f"서울특별시 중구 세종대로 110, {self.counter}층 {self.index}호"
        return {"message": f"{self.order_id} 배송지를 {address}로 바꿔 주세요"}


def token_for(port: int, username: str, password: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "POST", "/api/auth/token/", body=json.dumps({"username": username, "password": password}),
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"token for {username}: HTTP {response.status} {data}")
    return data["token"]


def clients_make(port: int, count: int) -> list[Client]:
    """One client per (customer, not-yet-shipped order) of the demo shop, reused round-robin."""
    from django.conf import settings

    from orders.models import Order

    pairs = list(
        Order.objects.filter(customer__user__isnull=False, status__in=[Order.Status.PAID, Order.Status.PREPARING])
        .exclude(customer__customer_id__regex=r"^S[0-9]{8}$")
        .order_by("order_id")
        .values_list("customer__user__username", "order_id")
    )
    if not pairs:
        raise RuntimeError("no unshipped demo orders for the chat benchmark")
    tokens: dict[str, str] = {}
    out = []
    for i in range(count):
        username, order_id = pairs[i % len(pairs)]
        if username not in tokens:
            tokens[username] = token_for(port, username, settings.CS_DEMO_PASSWORD)
        out.append(Client(port, tokens[username], order_id, index=i + 1))
    return out


@dataclass
class Sample:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    tool_calls: dict[int, int] = field(default_factory=dict)
    tool_ok: int = 0


def drive(
    clients: list[Client], kind: str, seconds: float, server_pgid: int | None = None
) -> tuple[Sample, float, dict]:
    """All clients in a loop for `seconds`; returns the merged sample, the wall time and CPU shares: of the
    system under test (gunicorn, PostgreSQL, Redis, this process's clients and model) and of all CPUs (which
    includes anything else running on the machine)."""
    samples = [Sample() for _ in clients]
    barrier = threading.Barrier(len(clients) + 1)
    stop_at = [0.0]

    def loop(client: Client, sample: Sample) -> None:
        barrier.wait()
        while time.monotonic() < stop_at[0]:
            started = time.perf_counter()
            try:
                if kind == "ping":
                    status, body = client.request("GET", "/api/ping/")
                else:
                    status, body = client.request("POST", "/api/chat/", client.chat_body())
            except Exception:
                sample.errors += 1
                continue
            elapsed = (time.perf_counter() - started) * 1000
            if status != 200:
                sample.errors += 1
                continue
            sample.latencies_ms.append(elapsed)
            if kind == "chat":
                results = json.loads(body).get("tool_results") or []
                sample.tool_calls[len(results)] = sample.tool_calls.get(len(results), 0) + 1
                sample.tool_ok += sum(1 for r in results if r.get("ok"))

    threads = [threading.Thread(target=loop, args=(c, s), daemon=True) for c, s in zip(clients, samples, strict=True)]
    for t in threads:
        t.start()
    cpu0 = cpu_times()
    parts0 = cpu_by_component(() if server_pgid is None else (server_pgid,))
    started = time.monotonic()
    stop_at[0] = started + seconds
    barrier.wait()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    busy_all = cpu_busy_between(cpu0, cpu_times())
    parts1 = cpu_by_component(() if server_pgid is None else (server_pgid,))
    ncpu = os.cpu_count() or 1
    sut = sum(parts1[k] - parts0[k] for k in ("worker", "postgres", "redis", "bench_process"))
    busy = {"sut": round(sut / (wall * ncpu), 2), "all": round(busy_all, 2),
            "server_ms_per_request": None}  # fmt: skip
    merged = Sample()
    for s in samples:
        merged.latencies_ms += s.latencies_ms
        merged.errors += s.errors
        merged.tool_ok += s.tool_ok
        for k, v in s.tool_calls.items():
            merged.tool_calls[k] = merged.tool_calls.get(k, 0) + v
    if merged.latencies_ms:
        busy["server_ms_per_request"] = round(
            (parts1["worker"] - parts0["worker"]) * 1000 / len(merged.latencies_ms), 2
        )
    return merged, wall, busy


def _now():
    from django.utils import timezone

    return timezone.now()


def model_call_ms(since) -> dict:
    """Round trip of each agent model call as the gateway recorded it (LLMCall.latency_ms, whole ms): the
    openai client, loopback HTTP and the scripted model, with L = 0."""
    from llm.models import LLMCall

    return summary(
        list(LLMCall.objects.filter(purpose="chat", created_at__gte=since).values_list("latency_ms", flat=True))
    )


def turn_queries(model_url: str) -> dict:
    """One chat turn in this process (Django test client, same settings) with its SQL captured: how many
    statements and how many commits (each a WAL flush) one turn costs."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from accounts.services import token_issue
    from llm.client import clear_client_cache

    user, order_id = customer_order()
    old = settings.OPENAI_BASE_URL
    settings.OPENAI_BASE_URL = model_url
    clear_client_cache()
    try:
        client = APIClient()
        _, key = token_issue(user=user, actor=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        address = f"서울특별시 중구 세종대로 110, 99층 {time.time_ns() % 10**6}호"
        body = {"message": f"{order_id} 배송지를 {address}로 바꿔 주세요"}
        with CaptureQueriesContext(connection) as ctx:
            response = client.post("/api/chat/", body, format="json")
    finally:
        settings.OPENAI_BASE_URL = old
        clear_client_cache()
    sqls = [q["sql"].lstrip().upper() for q in ctx.captured_queries]
    return {
        "status": response.status_code,
        "tool_calls": len(response.json().get("tool_results") or []),
        "statements": sum(1 for q in sqls if not q.startswith(TX_CONTROL)),
        "commits": commits(sqls),
    }


TX_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def commits(sqls: list[str]) -> int:
    """Durable commits: explicit COMMITs plus writes sent in autocommit (outside BEGIN … COMMIT)."""
    count, in_tx = 0, False
    for q in sqls:
        if q.startswith("BEGIN"):
            in_tx = True
        elif q.startswith(("COMMIT", "ROLLBACK")) and not q.startswith("ROLLBACK TO"):
            count += q.startswith("COMMIT")
            in_tx = False
        elif not in_tx and q.startswith(("INSERT", "UPDATE", "DELETE")):
            count += 1
    return count


def run(
    port: int,
    *,
    levels: list[int],
    seconds: float,
    model_server,
    model_url: str,
    server_pgid: int | None = None,
    log=print,
) -> dict:
    out: dict = {"seconds_per_point": seconds, "levels": []}
    pool = clients_make(port, max(levels))
    # Warm-up: every gunicorn worker thread opens its DB connection and imports what it needs.
    drive(pool, "ping", 1.0)
    drive(pool, "chat", 2.0)
    handler_s = handler_calls = turns = 0.0
    cpu_at_1 = None
    rps_at_1 = None
    for c in levels:
        clients = pool[:c]
        level: dict = {"concurrency": c}
        for kind in ("ping", "chat"):
            log(f"    {kind} × {c} clients, {seconds:g} s …")
            before = model_server.stats()
            phase_start = _now()
            sample, wall, busy = drive(clients, kind, seconds, server_pgid)
            after = model_server.stats()
            fig = summary(sample.latencies_ms)
            fig.update(rps=round(len(sample.latencies_ms) / wall, 1), errors=sample.errors, cpu_busy=busy["sut"],
                       cpu_busy_all=busy["all"], gunicorn_cpu_ms_per_request=busy["server_ms_per_request"])  # fmt: skip
            if kind == "chat":
                fig["tool_calls_per_turn"] = {str(k): v for k, v in sorted(sample.tool_calls.items())}
                fig["tool_ok"] = sample.tool_ok
                handler_s += after[0] - before[0]
                handler_calls += after[1] - before[1]
                turns += len(sample.latencies_ms)
                fig["model_call_ms"] = model_call_ms(phase_start)
            level[kind] = fig
        level["latency_ratio_median"] = ratio(level["chat"]["median"], level["ping"]["median"])
        level["latency_ratio_p90"] = ratio(level["chat"]["p90"], level["ping"]["p90"])
        level["throughput_ratio"] = ratio(level["ping"]["rps"], level["chat"]["rps"])
        if c == 1:
            cpu_at_1, rps_at_1 = level["chat"]["cpu_busy"], level["chat"]["rps"]
        elif rps_at_1:
            speedup = level["chat"]["rps"] / rps_at_1
            allowed = allowed_speedup(c, cpu_at_1)
            level["chat_scaling"] = {
                "speedup": round(speedup, 2),
                "allowed": round(allowed, 2),
                "cpu_busy_at_1": cpu_at_1,
                "fraction_of_allowed": round(speedup / allowed, 2),
            }
        out["levels"].append(level)
    out["turn_queries"] = turn_queries(model_url)
    # A refused or failed turn is not a measured turn: any error, or a turn that did not make exactly its one
    # tool call, makes the whole part invalid (the report says so and the run exits non-zero).
    problems = []
    for lv in out["levels"]:
        for kind in ("ping", "chat"):
            if lv[kind]["errors"]:
                problems.append(f"{kind} × {lv['concurrency']}: {lv[kind]['errors']} errors")
        calls = lv["chat"].get("tool_calls_per_turn") or {}
        if set(calls) != {"1"} or lv["chat"].get("tool_ok") != calls.get("1"):
            problems.append(f"chat × {lv['concurrency']}: tool calls per turn {calls}, ok {lv['chat'].get('tool_ok')}")
    if out["turn_queries"]["status"] != 200 or out["turn_queries"]["tool_calls"] != 1:
        problems.append(f"turn_queries: {out['turn_queries']}")
    out["valid"] = not problems
    out["problems"] = problems
    if turns:
        out["model_server_ms_per_turn"] = round(handler_s * 1000 / turns, 2)
        out["model_calls_per_turn"] = round(handler_calls / turns, 2)
    return out

"""Part 5 — our own cost: CPU per request of the serving process and CPU per draft of the Celery worker, read
from each process's own counters (utime + stime in /proc/PID/stat), so other load on the machine does not move
them the way it moves wall time; the worker's CPU per draft split by stage, read from the measured drafts
(`Draft.stage_cpu_ms`: each stage's thread CPU clock, which the pipeline stores with the draft); resident memory
per process (/proc/PID/smaps_rollup: private vs shared); and the statements and commits one request runs
(captured in this process with the same settings).

The web process is ONE gunicorn sync worker (no threads: its counters are exactly the requests' cost), the
model is the scripted server in this process (its CPU is not the worker's). Every measured request must answer
as expected (status and shape): one error or refusal makes that figure invalid and the run exit non-zero.
"""

from __future__ import annotations

import http.client
import json
import os
import time
from pathlib import Path

from bench import env as benv
from bench import report
from bench.data import customer_order

KINDS = ("ping", "plain_turn", "tool_turn", "ticket_create", "draft_apply")
PLAIN_MESSAGE = "안녕하세요"
STAFF_USERNAME = "bench-reviewer"


# --- process counters --------------------------------------------------------------------------------
def proc_cpu_ms(pid: int) -> float:
    return benv.proc_stat(pid, Path(f"/proc/{pid}/stat").read_text()).cpu_s * 1000


def pgid_cpu_ms(pgid: int) -> float:
    return sum(proc.cpu_s * 1000 for proc in benv.proc_stats() if proc.pgrp == pgid)


def children(pid: int) -> list[int]:
    return sorted(proc.pid for proc in benv.proc_stats() if proc.ppid == pid)


def memory_mb(pid: int) -> dict:
    """Rss, Pss, private and shared resident memory of one process, MB (smaps_rollup)."""
    values: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[name.strip()] = int(parts[0])

    def mb(*names: str) -> float:
        return round(sum(values.get(n, 0) for n in names) / 1024, 1)

    return {
        "rss": mb("Rss"),
        "pss": mb("Pss"),
        "private": mb("Private_Clean", "Private_Dirty"),
        "shared": mb("Shared_Clean", "Shared_Dirty"),
    }


# --- requests ------------------------------------------------------------------------------------------
def _request(port: int, method: str, path: str, token: str, body: dict | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Token {token}"}
    payload = None
    if body is not None:
        payload = json.dumps(body, ensure_ascii=False).encode()
        headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        data = {"_raw": raw[:200].decode(errors="replace")}
    return response.status, data


def check(kind: str, status: int, data: dict) -> str | None:
    """Why this answer is not the one measured (None when it is)."""
    if kind == "ping":
        return None if status == 200 and data.get("ok") is True else f"HTTP {status}"
    if kind in ("plain_turn", "tool_turn"):
        if status != 200:
            return f"HTTP {status} {str(data)[:120]}"
        results = data.get("tool_results") or []
        if kind == "plain_turn" and results:
            return f"expected no tool call, got {len(results)}"
        if kind == "tool_turn" and (len(results) != 1 or not results[0].get("ok")):
            return f"expected one successful tool call, got {results}"
        return None
    if kind == "ticket_create":
        return None if status == 201 else f"HTTP {status} {str(data)[:120]}"
    if kind == "draft_apply":
        return None if status == 200 else f"HTTP {status} {str(data)[:120]}"
    raise ValueError(kind)


class Bodies:
    """What each kind of request sends: a new address every tool turn (the change succeeds every time), a new
    ticket every creation, the next generated draft every apply."""

    def __init__(self, *, order_id: str, draft_ids: list[int]) -> None:
        self.order_id = order_id
        self.drafts = list(draft_ids)
        self.counter = 0

    def next(self, kind: str) -> tuple[str, str, dict | None]:
        self.counter += 1
        if kind == "ping":
            return "GET", "/api/ping/", None
        if kind == "plain_turn":
            return "POST", "/api/chat/", {"message": PLAIN_MESSAGE}
        if kind == "tool_turn":
            address = f"서울특별시 중구 세종대로 110, {self.counter}층 {os.getpid() % 1000}호"
            return "POST", "/api/chat/", {"message": f"{self.order_id} 배송지를 {address}로 바꿔 주세요"}
        if kind == "ticket_create":
            return "POST", "/api/tickets/", {"category": "기타", "subject": f"문의 {self.counter}",
                                             "body": "선물 포장이 가능한지 궁금합니다."}  # fmt: skip
        if kind == "draft_apply":
            if not self.drafts:
                raise RuntimeError("no generated draft left to apply")
            return "POST", f"/api/ops/drafts/{self.drafts.pop(0)}/apply/", {"override_reason": "벤치마크"}
        raise ValueError(kind)


# --- setup -------------------------------------------------------------------------------------------------
def reviewer():
    """A staff account allowed to send drafts (created once in the benchmark database)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    user, _ = get_user_model().objects.get_or_create(username=STAFF_USERNAME, defaults={"is_staff": True})
    perms = Permission.objects.filter(
        content_type__app_label="drafts", codename__in=["review", "view_draft"]
    )  # fmt: skip
    user.user_permissions.add(*perms)
    return user


def token(user) -> str:
    from accounts.services import token_issue

    return token_issue(user=user, actor=user)[1]


def drafts_generate(count: int, *, worker_pgid: int, log=print) -> tuple[list[int], dict]:
    """`count` inquiries through the running Celery worker, one at a time; the worker's CPU per draft."""
    from bench.draft import inquiries, submit, wait_for
    from drafts.models import Draft
    from drafts.stages import RUN_WORK, stages

    ids: list[int] = []
    errors: list[str] = []
    # One unmeasured draft first: the worker's imports and first connections are not a draft's cost.
    wait_for(submit(inquiries(1)[0]), timeout_s=120)
    cpu0 = pgid_cpu_ms(worker_pgid)
    for spec in inquiries(count):
        row = wait_for(submit(spec), timeout_s=120)
        if row["status"] != Draft.Status.GENERATED:
            errors.append(f"ticket {row['ticket_id']}: draft {row['status']} {row['errors']}")
            continue
        ids.append(Draft.objects.filter(ticket_id=row["ticket_id"]).values_list("pk", flat=True).first())
    cpu = pgid_cpu_ms(worker_pgid) - cpu0
    log(f"    {count} drafts: worker CPU {cpu:.0f} ms ({cpu / count:.1f} ms per draft), {len(errors)} errors")
    # The split by stage: what each measured draft's run read from its threads' CPU clocks and stored with it.
    per_draft = list(Draft.objects.filter(pk__in=ids).values_list("stage_cpu_ms", flat=True))
    split = report.stage_cpu(per_draft, round(cpu / count, 1), order=[*(s.name for s in stages()), *RUN_WORK])
    log("    per draft: " + ", ".join(f"{name} {fig['median']} ms" for name, fig in split["pieces"].items())
        + f"; together {split['sum']['ms_per_draft']} ms, {split['share_of_worker']} of the worker's")  # fmt: skip
    return ids, {
        "n": count,
        "cpu_ms_per_draft": round(cpu / count, 1),
        "stages": split,
        "errors": len(errors),
        "error_examples": errors[:3],
        "valid": not errors,
    }


def measure(port: int, worker_pid: int, kind: str, tokens: dict, bodies: Bodies, n: int, warmup: int) -> dict:
    errors: list[str] = []
    for _ in range(warmup):
        method, path, body = bodies.next(kind)
        status, data = _request(port, method, path, tokens[kind], body)
        if (why := check(kind, status, data)) is not None:
            errors.append(f"warm-up: {why}")
    cpu0 = proc_cpu_ms(worker_pid)
    for _ in range(n):
        method, path, body = bodies.next(kind)
        status, data = _request(port, method, path, tokens[kind], body)
        if (why := check(kind, status, data)) is not None:
            errors.append(why)
    cpu = proc_cpu_ms(worker_pid) - cpu0
    return {
        "n": n,
        "cpu_ms_per_request": round(cpu / n, 2),
        "errors": len(errors),
        "error_examples": errors[:3],
        "valid": not errors,
    }


def queries(kind: str, users: dict, bodies: Bodies, model_url: str) -> dict:
    """One request of `kind` in this process (Django test client, same settings) with its SQL captured."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from bench.chat import TX_CONTROL, commits
    from llm.client import clear_client_cache

    old = settings.OPENAI_BASE_URL
    settings.OPENAI_BASE_URL = model_url
    clear_client_cache()
    try:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token(users[kind])}")
        method, path, body = bodies.next(kind)
        with CaptureQueriesContext(connection) as ctx:
            if method == "GET":
                response = client.get(path)
            else:
                response = client.post(path, body, format="json")
    finally:
        settings.OPENAI_BASE_URL = old
        clear_client_cache()
    sqls = [q["sql"].lstrip().upper() for q in ctx.captured_queries]
    why = check(kind, response.status_code, response.json() if response.content else {})
    return {
        "statements": sum(1 for q in sqls if not q.startswith(TX_CONTROL)),
        "commits": commits(sqls),
        "valid": why is None,
        **({"error": why} if why else {}),
    }


def client_floor(model_url: str, *, n: int = 100) -> dict:
    """The CPU one model call costs the client alone, whatever our code does around it: the `openai` SDK (as
    llm.client calls it: raw response, parsed by us) and, for scale, a bare http.client POST of the same body,
    against the same scripted server, measured with this thread's CPU clock (the server's thread not counted).
    A tool turn makes two such calls, so `ping + 2 × sdk_call` is the least it can cost on this stack."""
    import http.client as hc
    from urllib.parse import urlsplit

    import openai

    messages = [
        {"role": "system", "content": "고객 상담 도우미입니다. " * 100},
        {"role": "user", "content": "안녕하세요"},
    ]
    client = openai.OpenAI(base_url=model_url, api_key="bench", max_retries=0)
    body = json.dumps({"model": benv.FAST_MODEL, "messages": messages}, ensure_ascii=False).encode()
    where = urlsplit(model_url)
    conn = hc.HTTPConnection(where.hostname, where.port, timeout=30)

    def sdk() -> None:
        client.chat.completions.with_raw_response.create(model=benv.FAST_MODEL, messages=messages).http_response.read()

    def bare() -> None:
        conn.request("POST", f"{where.path}/chat/completions", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"scripted model answered HTTP {response.status}")

    out = {}
    for name, call in (("sdk_call_cpu_ms", sdk), ("http_client_call_cpu_ms", bare)):
        for _ in range(5):
            call()
        t0 = time.thread_time()
        for _ in range(n):
            call()
        out[name] = round((time.thread_time() - t0) * 1000 / n, 2)
    conn.close()
    client.close()
    out["n"] = n
    return out


def prefork_memory(model_url: str, *, concurrency: int = 2, log=print) -> dict:
    """What a production-shaped worker holds: `--pool=prefork` with `concurrency` children, after each has had
    work (a few drafts), per process: the main process loads the analyser and the index before it forks, so the
    children's share of them is shared, not private (drafts.apps.warm_up_before_fork)."""
    from bench.draft import inquiries, submit, wait_for

    log(f"    memory of a prefork worker ({concurrency} children) …")
    worker = benv.worker_start(name="cpu-prefork", model_url=model_url, sequential=False, pool="prefork",
                               concurrency=concurrency)  # fmt: skip
    try:
        for spec in inquiries(2 * concurrency):
            wait_for(submit(spec), timeout_s=120)
        main = worker.popen.pid
        return {"main": memory_mb(main), "children": [memory_mb(pid) for pid in children(main)]}
    finally:
        worker.stop()


def run(*, model_url: str, n: int, n_drafts: int, gunicorn_conf: str | None, log=print) -> dict:
    user, order_id = customer_order()
    staff = reviewer()
    out: dict = {"n": n, "lifted": dict(benv.LIFTED), "gunicorn_conf": gunicorn_conf}

    log(f"[5] our CPU: {n_drafts} drafts through one Celery worker (--pool=solo)")
    worker = benv.worker_start(name="cpu", model_url=model_url, sequential=False, pool="solo", concurrency=1)
    try:
        draft_ids, out["draft"] = drafts_generate(n_drafts + 1, worker_pgid=worker.popen.pid, log=log)
        out["memory_celery"] = {str(pid): memory_mb(pid) for pid in [worker.popen.pid, *children(worker.popen.pid)]}
    finally:
        worker.stop()
    out["memory_celery_prefork"] = prefork_memory(model_url, log=log)

    server = benv.gunicorn_start(model_url=model_url, workers=1, threads=1, worker_class="sync", config=gunicorn_conf)
    try:
        deadline = time.monotonic() + 30
        while not (kids := children(server.popen.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        worker_pid = kids[0]
        users = {k: staff if k == "draft_apply" else user for k in KINDS}
        # One token per account: issuing more could push the oldest out (CS_AUTH_TOKENS_PER_USER).
        customer_key, staff_key = token(user), token(staff)
        tokens = {k: staff_key if k == "draft_apply" else customer_key for k in KINDS}
        bodies = Bodies(order_id=order_id, draft_ids=draft_ids[1:])
        out["requests"] = {}
        for kind in KINDS:
            count = min(n, len(bodies.drafts) - 1) if kind == "draft_apply" else n
            log(f"    {kind} × {count} (one gunicorn sync worker) …")
            out["requests"][kind] = measure(server.info["port"], worker_pid, kind, tokens, bodies, count,
                                            warmup=1 if kind == "draft_apply" else 3)  # fmt: skip
        out["memory_web"] = {"master": memory_mb(server.popen.pid), "worker": memory_mb(worker_pid)}
    finally:
        server.stop()
    # The last draft is kept for the in-process query count of an apply.
    bodies.drafts = draft_ids[:1]
    out["queries"] = {kind: queries(kind, users, bodies, model_url) for kind in KINDS}
    ping = out["requests"]["ping"]["cpu_ms_per_request"]
    for fig in out["requests"].values():
        fig["ratio_to_ping"] = round(fig["cpu_ms_per_request"] / ping, 2) if ping else None
    out["floor"] = floor = client_floor(model_url)
    floor["tool_turn_floor_ms"] = round(ping + 2 * floor["sdk_call_cpu_ms"], 2)
    floor["tool_turn_floor_ratio_to_ping"] = round(floor["tool_turn_floor_ms"] / ping, 2) if ping else None
    log(f"    floor: one openai SDK call {floor['sdk_call_cpu_ms']} ms CPU (bare http.client "
        f"{floor['http_client_call_cpu_ms']} ms); a tool turn cannot cost less than ping + 2 calls = "
        f"{floor['tool_turn_floor_ms']} ms ({floor['tool_turn_floor_ratio_to_ping']}× ping)")  # fmt: skip
    out["valid"] = (
        all(f["valid"] for f in out["requests"].values())
        and out["draft"]["valid"]
        and all(q["valid"] for q in out["queries"].values())
    )
    return out

"""The first chat escalation after a server start: how long the customer waits, and how much of that is our
own time (everything but the model's).

Embedded mode as a demo runs it: SQLite, no Redis (Celery eager), `manage.py runserver --noreload`, the demo
shop and knowledge. The model is `llm.testing.ScriptedModelServer` in this process answering with
`llm.offline.respond` (no added latency); the time it spends answering is measured on its side and
subtracted ("our own time"). Two starts of the same copy of the database:

- before: CS_OUTBOX_BACKGROUND=0 and CS_WARM_UP_ON_START=0 — the draft pipeline runs inside the chat request
  and the Korean analyser and the index load on first use (the slow first escalation the `after` start removes);
- after: the defaults — the pipeline is dispatched to a background thread after the response, and the
  analyser and index load while the server starts (measured after its `drafts.warm_up_done` log line).

Run: `python -m bench.first_escalation [--runs 3]`. Prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from chaos.processes import free_port

BASE_DIR = Path(__file__).resolve().parent.parent
PY = sys.executable
MESSAGE = "상담원 연결해 주세요"


class TimedModel:
    """The built-in model behind a real HTTP server; records the seconds each answer took on its side."""

    def __init__(self) -> None:
        from llm.offline import respond

        self._respond = respond
        self.spent: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict):
        start = time.perf_counter()
        answer = self._respond(body)
        with self._lock:
            self.spent.append((start, time.perf_counter() - start))
        return answer

    def between(self, start: float, end: float) -> float:
        with self._lock:
            return sum(seconds for at, seconds in self.spent if start <= at <= end)


def _request(port: int, method: str, path: str, body: dict | None = None, token: str = "") -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    conn.request(method, path, body=json.dumps(body, ensure_ascii=False).encode() if body else None, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    try:
        return response.status, json.loads(raw or b"{}")
    except ValueError:
        return response.status, {}


def _env(db: Path, model_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="cs_project.settings.local",
        DATABASE_URL=f"sqlite:///{db}",
        DEBUG="0",
        OPENAI_BASE_URL=model_url,
        OPENAI_API_KEY="bench",
        CS_SWEEP_EMBEDDED="0",
        PYTHONUNBUFFERED="1",
        **extra,
    )
    return env


def _prepare(template: Path, model_url: str) -> None:
    env = _env(template, model_url)
    subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, env=env, check=True)
    subprocess.run([PY, "manage.py", "seed_demo", "--no-progress"], cwd=BASE_DIR, env=env, check=True)


def _start(db: Path, model_url: str, log_path: Path, **extra: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    log = log_path.open("w")
    proc = subprocess.Popen(
        [PY, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=BASE_DIR,
        env=_env(db, model_url, **extra),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if _request(port, "GET", "/healthz")[0] == 200:
                return proc, port
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the server did not start; see {log_path}")


def _wait_for(log_path: Path, text: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if text in log_path.read_text(errors="replace"):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{text!r} not in {log_path}")


def one_start(variant: str, template: Path, workdir: Path, model: TimedModel, model_url: str) -> dict:
    db = workdir / f"{variant}.sqlite3"
    shutil.copy(template, db)
    extra = {"CS_OUTBOX_BACKGROUND": "0", "CS_WARM_UP_ON_START": "0"} if variant == "before" else {}
    log_path = workdir / f"{variant}.log"
    proc, port = _start(db, model_url, log_path, **extra)
    try:
        if variant == "after":
            _wait_for(log_path, "drafts.warm_up_done")
        status, body = _request(port, "POST", "/api/auth/token/", {"username": "c003", "password": "demo1234"})
        assert status == 200, body
        token = body["token"]
        start = time.perf_counter()
        status, body = _request(port, "POST", "/api/chat/", {"message": MESSAGE}, token=token)
        end = time.perf_counter()
        assert status == 200, body
        assert any(r.get("tool") == "create_ticket" for r in body.get("tool_results", [])), body
        model_s = model.between(start, end)
        return {"wall_s": end - start, "model_s": model_s, "own_s": end - start - model_s}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(BASE_DIR))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.local")
    import django

    django.setup()
    from llm.testing import ScriptedModelServer

    model = TimedModel()
    with ScriptedModelServer(handler=model) as server, tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        template = workdir / "template.sqlite3"
        _prepare(template, server.base_url)
        results: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for variant in ("before", "after"):
                results[variant].append(one_start(variant, template, workdir, model, server.base_url))
    print("| 서버 시작 후 첫 상담원 연결 | 고객 대기(중앙값) | 모델 시간 | 우리 시간(중앙값) | 최대 우리 시간 |")
    print("|---|---:|---:|---:|---:|")
    for variant, label in (
        ("before", "이전: 요청 안에서 초안, 첫 사용 때 분석기 로드"),
        ("after", "이후: 응답 뒤 백그라운드, 시작 때 로드"),
    ):
        rows = results[variant]
        print(
            f"| {label} | {statistics.median(r['wall_s'] for r in rows) * 1000:.0f} ms "
            f"| {statistics.median(r['model_s'] for r in rows) * 1000:.0f} ms "
            f"| {statistics.median(r['own_s'] for r in rows) * 1000:.0f} ms "
            f"| {max(r['own_s'] for r in rows) * 1000:.0f} ms |"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

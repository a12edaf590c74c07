"""`python -m bench` (`make bench`): run the five parts, write bench/results/latest.json and the tables in
docs/BENCHMARKS.md, print the tables and every target met or missed. Figures are recorded, never asserted; but a
part that saw an error or a refusal while measuring is marked invalid and the run exits 1 (throttles and the model
budget are lifted for the benchmark, `bench.env.LIFTED`, so a refusal is a fault, not load shedding).

    python -m bench                          # everything, L = 300 ms
    python -m bench --only draft,throughput  # some parts (the others keep their last figures)
    python -m bench --quick                  # fewer samples, for a smoke run
    python -m bench --fresh                  # drop and regenerate cs_bench's datasets first
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import env as benv
from chaos.processes import Proc

PARTS = ("scale", "draft", "throughput", "chat", "cpu")
RESULTS = benv.BASE_DIR / "bench" / "results" / "latest.json"
DOC = benv.BASE_DIR / "docs" / "BENCHMARKS.md"


class TimedModel:
    """`llm.offline.respond` behind the scripted server, with the handler time it spends (the model's own CPU
    in this process, which is not the system's overhead)."""

    def __init__(self) -> None:
        from llm.offline import respond

        self._respond = respond
        self._lock = threading.Lock()
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, body: dict) -> dict:
        started = time.perf_counter()
        try:
            return self._respond(body)
        finally:
            with self._lock:
                self.seconds += time.perf_counter() - started
                self.calls += 1

    def stats(self) -> tuple[float, int]:
        with self._lock:
            return self.seconds, self.calls


def _background_cpu(seconds: float = 2.0) -> float:
    """Share of all CPUs busy while the benchmark is not running yet (other processes on the machine)."""
    start = benv.cpu_times()
    time.sleep(seconds)
    return benv.cpu_busy_between(start, benv.cpu_times())


def log(message: str) -> None:
    print(message, flush=True)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts: {','.join(PARTS)}")
    parser.add_argument("--L", dest="L", type=float, default=300.0, help="model latency per call, ms (default 300)")
    parser.add_argument("--quick", action="store_true", help="fewer samples (smoke run; figures are noisier)")
    parser.add_argument("--fresh", action="store_true", help="drop cs_bench and regenerate the datasets")
    parser.add_argument("--pool", default="threads", choices=["threads", "prefork"], help="Celery pool")
    parser.add_argument(
        "--worker-processes",
        type=int,
        default=os.cpu_count() or 1,
        help="Celery worker processes sharing the 16 pipelines (default: one per CPU; one interpreter's GIL caps a "
        "single process)",
    )
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--gunicorn-threads", type=int, default=8)
    parser.add_argument(
        "--gunicorn-conf",
        default="cs_project/gunicorn_conf.py" if (benv.BASE_DIR / "cs_project" / "gunicorn_conf.py").exists() else "",
        help="gunicorn config file for the cpu part ('' for none)",
    )
    args = parser.parse_args(argv)
    args.parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started = time.monotonic()
    os.environ.update(benv.base_env())
    import django

    django.setup()
    from bench import chat, draft, report, scale, throughput
    from llm.testing import ScriptedModelServer

    L = args.L
    quick = args.quick
    loadavg_before = Path("/proc/loadavg").read_text().split()[:3]
    background = _background_cpu()
    if background > 0.15:
        log(f"warning: {background:.0%} of all CPUs were busy before the run (other processes): figures are noisy")
    log(f"bench: parts={','.join(args.parts)} L={L:g} ms {'quick' if quick else 'full'}; cpu_count={os.cpu_count()}")
    benv.database_ensure(fresh=args.fresh)
    benv.redis_flush()

    previous = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() and not args.fresh else {}
    results: dict = {k: v for k, v in previous.items() if k in PARTS and k not in args.parts}
    # The figures a change is compared with (docs/BENCHMARKS.md, "Before / after"): kept across runs until
    # BEFORE names another results file.
    before_path = os.environ.get("BEFORE")
    if before_path:
        before = json.loads(Path(before_path).read_text(encoding="utf-8"))
        results["before"] = {k: before[k] for k in ("cpu", "chat", "draft", "meta") if k in before}
    elif "before" in previous:
        results["before"] = previous["before"]
    procs: list[Proc] = []
    slow_model = TimedModel()
    fast_model = TimedModel()
    slow = ScriptedModelServer(handler=slow_model, latency_s=L / 1000).start()
    fast = ScriptedModelServer(handler=fast_model, latency_s=0).start()
    try:
        if "scale" in args.parts:
            log("[3] scale")
            results["scale"] = scale.run(fresh=args.fresh, quick=quick, log=log)
        else:
            from bench.data import dataset_ensure

            dataset_ensure(schema=None, target=None, knowledge=True, log=log)  # demo shop + knowledge

        n = 8 if quick else 30
        concurrency = 16
        processes = max(1, args.worker_processes)
        per_process = max(1, concurrency // processes)
        worker_label = f"{processes} × --pool={args.pool} --concurrency={per_process}"
        if "draft" in args.parts or "throughput" in args.parts:
            workers = [
                benv.worker_start(
                    name=f"parallel{i}",
                    model_url=slow.base_url,
                    sequential=False,
                    pool=args.pool,
                    concurrency=per_process,
                )  # fmt: skip
                for i in range(processes)
            ]
            procs.extend(workers)
            try:
                if "draft" in args.parts:
                    log(f"[1] draft critical path: {n} inquiries, stages in parallel")
                    results["draft"] = {"L_ms": L, "n": n, "mix": draft.mix(n), "worker": worker_label,
                                        "parallel": draft.run_mode(n, L_ms=L, log=log)}  # fmt: skip
                if "throughput" in args.parts:
                    log("[4] throughput")
                    levels = [(1, 3), (4, 8), (16, 32)] if quick else [(1, 6), (4, 16), (16, 64)]
                    results["throughput"] = throughput.run(
                        levels, L_ms=L, worker_pgids=tuple(w.popen.pid for w in workers), model=slow_model, log=log
                    )
                    results["throughput"]["worker"] = worker_label
            finally:
                for w in workers:
                    w.stop()
            if "draft" in args.parts:
                worker = benv.worker_start(name="sequential", model_url=slow.base_url, sequential=True,
                                           pool=args.pool, concurrency=concurrency)  # fmt: skip
                procs.append(worker)
                try:
                    log(f"[1] draft critical path: the same {n} inquiries, every stage sequential (contrast)")
                    results["draft"]["sequential"] = draft.run_mode(n, L_ms=L, log=log)
                finally:
                    worker.stop()

        if "chat" in args.parts:
            log("[2] chat overhead (L = 0)")
            server = benv.gunicorn_start(model_url=fast.base_url, workers=args.gunicorn_workers,
                                         threads=args.gunicorn_threads)  # fmt: skip
            procs.append(server)
            try:
                results["chat"] = chat.run(server.info["port"], levels=[1, 16], seconds=3.0 if quick else 8.0,
                                           model_server=fast_model, model_url=fast.base_url,
                                           server_pgid=server.popen.pid, log=log)  # fmt: skip
                results["chat"]["gunicorn"] = f"-w {args.gunicorn_workers} -k gthread --threads {args.gunicorn_threads}"
            finally:
                server.stop()
        if "cpu" in args.parts:
            from bench import cpu

            results["cpu"] = cpu.run(model_url=fast.base_url, n=8 if quick else 30, n_drafts=6 if quick else 20,
                                     gunicorn_conf=args.gunicorn_conf or None, log=log)  # fmt: skip
    finally:
        for proc in procs:
            proc.stop()
        slow.stop()
        fast.stop()

    results["meta"] = {
        **benv.machine(),
        "L_ms": L,
        "quick": quick,
        "parts_run": args.parts,
        "finished_at": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
        "duration_s": round(time.monotonic() - started, 1),
        "celery_pool": f"{args.pool}, concurrency 16",
        "gunicorn": f"-w {args.gunicorn_workers} -k gthread --threads {args.gunicorn_threads}",
        "pg_max_connections": benv.pg_max_connections(),
        "background_cpu_busy_before": round(background, 2),
        "loadavg_before": loadavg_before,
        "loadavg_after": Path("/proc/loadavg").read_text().split()[:3],
    }
    results["targets"] = report.targets(results)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    generated = report.render(results)
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    DOC.write_text(report.doc_update(text, generated), encoding="utf-8")
    print()
    print(generated)
    log(f"wrote {RESULTS.relative_to(benv.BASE_DIR)} and {DOC.relative_to(benv.BASE_DIR)} "
        f"({results['meta']['duration_s']} s)")  # fmt: skip
    invalid = [name for name in args.parts if (results.get(name) or {}).get("valid") is False]
    if invalid:
        log(f"INVALID: {', '.join(invalid)} saw errors or refusals while measuring; their figures are not figures")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Part 4 — throughput: drafts per second with 1, 4 and 16 pipelines in flight (closed loop: a new inquiry
is opened as soon as one finishes), against the ideal concurrency ÷ single-pipeline critical path."""

from __future__ import annotations

import time

from bench.draft import inquiries, poll, stage_ms, submit, wait_for
from bench.report import ideal_throughput, ratio, summary


def cpu_per_draft(before: dict, after: dict, drafts: int, model_s: float) -> dict:
    """CPU milliseconds per draft by component; "other" is mostly PostgreSQL backends that already exited
    (a connection per context source and side stage) plus the rest of the machine."""
    delta = {k: after[k] - before[k] for k in before}
    known = delta["worker"] + delta["postgres"] + delta["redis"] + delta["bench_process"]
    out = {
        "worker": delta["worker"],
        "postgres_live_backends": delta["postgres"],
        "redis": delta["redis"],
        "scripted_model_handler": model_s,
        "bench_process_other": delta["bench_process"] - model_s,
        "other": delta["all_cpus_busy"] - known,
        "all_cpus": delta["all_cpus_busy"],
    }
    return {k: round(v * 1000 / drafts, 1) for k, v in out.items()}


def run_level(
    concurrency: int,
    drafts: int,
    *,
    worker_pgids: tuple[int, ...] = (),
    model=None,
    timeout_s: float = 180.0,
    interval_s: float = 0.01,
) -> dict:
    from django.db import connection

    from bench.env import cpu_by_component, pg_sessions

    cpu0 = cpu_by_component(worker_pgids)
    sessions0 = pg_sessions()
    model0 = model.stats()[0] if model else 0.0

    specs = iter(inquiries(drafts))
    in_flight: set[int] = set()
    rows: list[dict] = []
    submitted = 0
    peak_connections = 0
    deadline = time.monotonic() + timeout_s
    loops = 0
    while len(rows) < drafts:
        while len(in_flight) < concurrency and submitted < drafts:
            spec = next(specs)
            in_flight.add(submit((spec[0], spec[1], f"thr{concurrency} {spec[2]}", spec[3])))
            submitted += 1
        time.sleep(interval_s)
        done = poll(list(in_flight))
        for ticket_id, row in done.items():
            in_flight.discard(ticket_id)
            rows.append(row)
        loops += 1
        if loops % 20 == 0:
            with connection.cursor() as cur:
                cur.execute("SELECT count(*) FROM pg_stat_activity")
                peak_connections = max(peak_connections, int(cur.fetchone()[0]))
        if time.monotonic() > deadline:
            raise TimeoutError(f"throughput at {concurrency}: {len(rows)}/{drafts} finished after {timeout_s:.0f}s")
    cpu = cpu_per_draft(cpu0, cpu_by_component(worker_pgids), drafts, (model.stats()[0] - model0) if model else 0.0)
    sessions = pg_sessions() - sessions0
    start = min(r["input_at"] for r in rows)
    ends = [r["confidence_at"] or r["qa_at"] or r["draft_at"] or r["input_at"] for r in rows]
    span_s = (max(ends) - start).total_seconds()
    paths = [v for v in (stage_ms(r)["confidence"] for r in rows) if v is not None]
    failed = sum(1 for r in rows if r["status"] != "GENERATED" or "FAILED" in (r["qa_state"], r["confidence_state"]))
    partial = sum(
        1 for r in rows if any(v != "ok" for k, v in (r.get("context_report") or {}).items() if k != "elapsed_ms")
    )
    return {
        "concurrency": concurrency,
        "drafts": drafts,
        "span_s": round(span_s, 3),
        "drafts_per_s": round(drafts / span_s, 3) if span_s > 0 else None,
        "critical_path": summary(paths),
        "failed": failed,
        "context_partial": partial,
        "peak_pg_connections": peak_connections,
        "cpu_ms_per_draft": cpu,
        "pg_connections_opened_per_draft": round(sessions / drafts, 1),
    }


def run(
    levels: list[tuple[int, int]], *, L_ms: float, worker_pgids: tuple[int, ...] = (), model=None, log=print
) -> dict:
    out: dict = {"L_ms": L_ms, "levels": []}
    for spec in inquiries(2):  # warm-up (first retrieval loads Kiwi), not counted
        wait_for(submit((spec[0], spec[1], "warm-up " + spec[2], spec[3])))
    base = None
    for concurrency, drafts in levels:
        log(f"    {concurrency} pipeline(s), {drafts} drafts …")
        level = run_level(concurrency, drafts, worker_pgids=worker_pgids, model=model)
        if base is None:
            base = level["critical_path"]["median"] / 1000  # the single-pipeline critical path (s)
            out["critical_path_1_ms"] = level["critical_path"]["median"]
        ideal = ideal_throughput(concurrency, base)
        floor = ideal_throughput(concurrency, 3 * L_ms / 1000)
        level["ideal_per_s"] = round(ideal, 3)
        level["ratio_to_ideal"] = ratio(level["drafts_per_s"], ideal)
        level["model_floor_per_s"] = round(floor, 3)
        level["ratio_to_model_floor"] = ratio(level["drafts_per_s"], floor)
        out["levels"].append(level)
    return out

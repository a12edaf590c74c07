"""The fault suite's table: printed, and written to docs/RELIABILITY.md by `make chaos`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from chaos.suite import ScenarioResult, Timings


def _answers(result: ScenarioResult) -> str:
    during = {k[len("during ") :]: v for k, v in result.answers.items() if k.startswith("during ")}
    rest = {k: v for k, v in result.answers.items() if not k.startswith("during ")}
    fmt = lambda d: ", ".join(f"{k}×{v}" for k, v in sorted(d.items())) or "-"  # noqa: E731
    return f"during: {fmt(during)}; around: {fmt(rest)}"


def _checks(result: ScenarioResult) -> str:
    return "<br>".join(f"{'✅' if c.ok else '❌'} {c.name}: {c.detail}" for c in result.checks)


def table(results: list[ScenarioResult], timings: Timings) -> str:
    lines = [
        "| scenario | API answers by status | invariants after recovery | time to recover |",
        "|---|---|---|---|",
    ]
    for r in results:
        recovered = f"{r.recovered_s:g} s" if r.recovered_s is not None else f"**not within {r.deadline_s:g} s**"
        notes = f"<br>_{'; '.join(r.notes)}_" if r.notes else ""
        lines.append(f"| **{r.name}**: {r.fault}{notes} | {_answers(r)} | {_checks(r)} | {recovered} |")
    return "\n".join(lines)


def settings_line(timings: Timings, limits: dict) -> str:
    order = "holds" if limits.get("order_ok") else "**VIOLATED**"
    return (
        f"Timings ({timings.name}): model {timings.model_latency_s:g} s per call, client timeout "
        f"{timings.llm_timeout_s:g} s; effective draft task time limit {limits.get('time_limit')} s < lease "
        f"{limits.get('lease')} s < visibility timeout {limits.get('visibility')} s: {order} (manage.py check: "
        f"{limits.get('system_check')}); periodic tasks on beat: "
        f"{', '.join(limits.get('beat') or []) or '**none**'}; sweep every {timings.sweep_interval_s} s "
        f"(grace {timings.sweep_grace_s} s); bound lease + sweep = {timings.bound_s} s, plus {timings.drain_s:g} s "
        f"for the backlog's drafts; {timings.ops_per_scenario} customer requests per scenario from "
        f"{timings.load_threads} clients."
    )


def render(results: list[ScenarioResult], timings: Timings, limits: dict) -> str:
    passed = sum(r.ok for r in results)
    return "\n".join(
        [
            f"{passed}/{len(results)} scenarios recovered with every invariant holding.",
            "",
            settings_line(timings, limits),
            "",
            table(results, timings),
        ]
    )


DOC_HEAD = """# Reliability: the fault suite

Written by `make chaos` (`python -m chaos`); the README section "Fault suite: `make chaos`" says what it
runs and proves.
"A {status} NOT JSON", "503 no Retry-After" or any 5xx other than 503 in the answers column is a failure.
"during" counts requests sent while the fault was on; "around" those sent just before or after it.
"""


def write_doc(path: Path, results: list[ScenarioResult], timings: Timings, limits: dict) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{DOC_HEAD}\nLast run: {stamp}.\n\n{render(results, timings, limits)}\n", encoding="utf-8")

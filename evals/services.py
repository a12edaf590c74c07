"""Entry points the commands call: run the agent suite end to end and write its report."""

from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.test.utils import override_settings
from tqdm import tqdm

from evals.drafts_eval import (
    confidence_auroc,
    decided_drafts,
    draft_case_list,
    draft_case_run,
    drafts_report_build,
    drafts_report_markdown,
)
from evals.report import report_build, report_write
from evals.runner import suite_run
from evals.schema import TASKS_DIR, task_list
from fixtures.demo import demo_knowledge_seed, demo_seed
from llm.client import OFFLINE_MODEL, clear_client_cache, is_offline


@dataclass(frozen=True)
class AgentEvalOutcome:
    report: dict
    json_path: Path
    md_path: Path


@contextmanager
def model_settings(model: str | None):
    """`offline` (or nothing with no endpoint configured) = the built-in model; any other name = that model
    on OPENAI_BASE_URL with no fallback, so the report measures exactly one model."""
    if model == "offline":
        overrides = {"OPENAI_BASE_URL": None, "OPENAI_API_KEY": None}
    elif model:
        overrides = {"CS_LLM_MODEL": model, "CS_LLM_FALLBACK_MODEL": ""}
    else:
        overrides = {"CS_LLM_FALLBACK_MODEL": ""}
    with override_settings(**overrides):
        clear_client_cache()
        try:
            yield OFFLINE_MODEL if is_offline() else settings.CS_LLM_MODEL
        finally:
            clear_client_cache()


@contextmanager
def scratch_database(*, keep: bool = False):
    """A fresh database next to the configured one (Django's test-database machinery: `<name>_eval_scratch`
    on PostgreSQL, a temporary file on SQLite), migrated and seeded with the demo shop; dropped afterwards."""
    old_name = connection.settings_dict["NAME"]
    test_settings = connection.settings_dict.setdefault("TEST", {})
    old_test_name = test_settings.get("NAME")
    with tempfile.TemporaryDirectory(prefix="cs-evals-") as tmp:
        if connection.vendor == "sqlite":
            # A file, not shared-cache memory: the draft pipeline reads from its own threads.
            test_settings["NAME"] = str(Path(tmp) / "eval.sqlite3")
        else:
            # Not test_<name>: a test run on the same server must never be clobbered by an eval run.
            test_settings["NAME"] = f"{old_name}_eval_scratch"
        connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=keep, serialize=False)
        try:
            demo_seed(password=settings.CS_DEMO_PASSWORD, knowledge=False)
            yield
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=keep)
            test_settings["NAME"] = old_test_name


def agent_eval_run(
    *,
    selector: str | None,
    model: str | None,
    user_model: str | None,
    judge_model: str | None,
    trials: int,
    concurrency: int,
    out_dir: Path,
    prices: tuple[float, float] | None = None,
    progress: bool = False,
    tasks_dir: Path | None = None,
) -> AgentEvalOutcome:
    tasks = task_list(selector, directory=tasks_dir or TASKS_DIR)
    if not tasks:
        raise ValueError(f"no task matches {selector!r}")
    started = datetime.now().isoformat(timespec="seconds")
    with model_settings(model) as model_name:
        results = suite_run(
            tasks,
            trials=trials,
            user_model=user_model,
            judge_model=judge_model,
            concurrency=concurrency,
            progress=progress,
        )
        meta = {
            "model": model_name,
            "base_url": None if is_offline() else settings.OPENAI_BASE_URL,
            "user": user_model or "scripted",
            "judge": judge_model,
            "selector": selector,
            "tasks_dir": str(tasks_dir) if tasks_dir else None,
            "started_at": started,
            "today": sorted({t.today for t in tasks}),
        }
    report = report_build([r.as_dict() for r in results], meta=meta, prices=prices)
    json_path, md_path = report_write(report, out_dir)
    return AgentEvalOutcome(report, json_path, md_path)


@contextmanager
def scratch_database_with_knowledge(*, keep: bool = False):
    """The scratch shop plus tags, FAQ, indexed documents and service events (frozen knowledge)."""
    with scratch_database(keep=keep):
        demo_knowledge_seed()
        yield


def drafts_eval_run(
    *,
    selector: str | None,
    model: str | None,
    out_dir: Path,
    decisions: list | None = None,
    ratings: dict | None = None,
    progress: bool = False,
) -> AgentEvalOutcome:
    """Run the golden set. `decisions`: real operator decisions read beforehand from the shop's own database
    (the golden set runs on a scratch database that has none)."""
    cases = draft_case_list(selector)
    if not cases:
        raise ValueError(f"no draft case matches {selector!r}")
    decisions = decided_drafts() if decisions is None else decisions
    with model_settings(model) as model_name, override_settings(CS_AI_PIPELINE_SEQUENTIAL=False):
        scores = [draft_case_run(case) for case in tqdm(cases, disable=not progress, unit="case", desc="drafts")]
    report = drafts_report_build(
        scores,
        meta={"model": model_name, "selector": selector, "started_at": datetime.now().isoformat(timespec="seconds")},
        decisions_auroc=confidence_auroc(decisions),
        decisions=len(decisions),
    )
    report["operator_ratings"] = ratings
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "drafts-report.json", out_dir / "drafts-report.md"
    json_path.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    md_path.write_text(drafts_report_markdown(report), encoding="utf-8")
    return AgentEvalOutcome(report, json_path, md_path)

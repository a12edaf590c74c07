"""Entry points the commands call: run the agent suite end to end and write its report."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.test.utils import override_settings

from evals.report import report_build, report_write
from evals.runner import suite_run
from evals.schema import task_list
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
    """A fresh database next to the configured one (Django's test-database machinery: `test_<name>` on
    PostgreSQL, in memory on SQLite), migrated and seeded with the demo shop; dropped afterwards."""
    from common.demo import demo_seed

    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=keep, serialize=False)
    try:
        demo_seed(password=settings.CS_DEMO_PASSWORD, knowledge=False)
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=keep)


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
) -> AgentEvalOutcome:
    tasks = task_list(selector)
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
            "started_at": started,
            "today": sorted({t.today for t in tasks}),
        }
    report = report_build([r.as_dict() for r in results], meta=meta, prices=prices)
    json_path, md_path = report_write(report, out_dir)
    return AgentEvalOutcome(report, json_path, md_path)

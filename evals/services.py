"""Entry points the commands call: run the agent suite or the draft golden set end to end and write the report."""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.test.utils import override_settings
from tqdm import tqdm

from common.actors import Actor
from evals.compare import compare_build, compare_markdown
from evals.drafts_eval import (
    CASES_DIR,
    confidence_auroc,
    decided_drafts,
    draft_case_list,
    draft_case_run,
    drafts_report_build,
    drafts_report_markdown,
    last_call_id,
    model_calls_since,
)
from evals.models import EvalRun
from evals.report import CURRENCIES, report_build, report_write
from evals.runner import fixture_baseline, suite_run
from evals.schema import TASKS_DIR, task_list
from fixtures.demo import demo_knowledge_seed, demo_seed
from integration.errors import InvalidInput
from integration.services.imports import shop_import_batch
from integration.services.integrations import integration_create
from llm.client import OFFLINE_MODEL, clear_client_cache, is_offline
from orders.services import demo_accounts_ensure, shop_fixture_load, shop_fixture_read

log = logging.getLogger(__name__)

RUN_LOG = "run.log"


class EvalUsageError(ValueError):
    """The run cannot measure what was asked (a model named with no endpoint, no task selected, a fixture
    that does not load): one line for the person, before anything runs."""


@dataclass(frozen=True)
class AgentEvalOutcome:
    report: dict
    json_path: Path
    md_path: Path

    @property
    def valid(self) -> bool:
        return bool((self.report.get("validity") or {}).get("valid", True))


def models_check(*, model: str | None, user_model: str | None = None, judge_model: str | None = None) -> None:
    """A named model is measured on the configured endpoint or not at all: with no endpoint, the built-in
    stand-in would answer in its place and the report would say the named model scored it."""
    if not is_offline():
        return
    endpoint = "모델 엔드포인트가 설정되어 있지 않습니다 (OPENAI_BASE_URL, OPENAI_API_KEY)"
    if model and model != "offline":
        raise EvalUsageError(f"--model {model}: {endpoint}. 내장 모델을 재려면 --model offline")
    for flag, name in (("--user-model", user_model), ("--judge-model", judge_model)):
        if name:
            raise EvalUsageError(f"{flag} {name}: {endpoint}. 내장 모델은 고객 역할도 심판도 할 수 없습니다")


@contextmanager
def model_settings(model: str | None):
    """`offline` (or nothing with no endpoint configured) = the built-in model; any other name = that model
    on OPENAI_BASE_URL with no fallback, so the report measures exactly one model."""
    models_check(model=model)
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


class _AboveTheBar(logging.StreamHandler):
    """A console handler that writes through tqdm, so a warning lands above the progress bar, not inside it."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=self.stream)
        except Exception:  # the logging module's own contract: a handler never raises
            self.handleError(record)


@contextmanager
def run_logging(out_dir: Path) -> Iterator[Path]:
    """While a run goes: the terminal shows only warnings and errors (written above the progress bar, not
    through it); everything from INFO up goes to `run.log` in the report folder."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RUN_LOG
    root = logging.getLogger()
    saved = list(root.handlers)
    console = [h for h in saved if type(h) is logging.StreamHandler]
    to_file = logging.FileHandler(path, encoding="utf-8")
    to_file.setLevel(logging.INFO)
    if console and console[0].formatter:
        to_file.setFormatter(console[0].formatter)
    quiet = []
    for handler in console:
        above = _AboveTheBar(handler.stream)
        above.setFormatter(handler.formatter)
        above.setLevel(max(logging.WARNING, handler.level))
        quiet.append(above)
    root.handlers = [h for h in saved if h not in console] + quiet + [to_file]
    try:
        yield path
    finally:
        root.handlers = saved
        to_file.close()


def fixture_load(path: Path) -> dict[str, int]:
    """A shop's own catalogue, customers and orders: `fixtures/shop.json`'s form ({"customers", "products",
    "orders"}), or the shop import's JSONL (one customer/product/order a line, `manage.py import_shop`), loaded
    through that import as the shop `eval-fixture`. Every customer gets a login, as in the demo."""
    if path.suffix == ".jsonl":
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        actor = Actor.system("manage.py eval")
        issued = integration_create(name="eval-fixture", actor=actor)
        results = shop_import_batch(integration=issued.integration, lines=lines, actor=actor)
        problems = [
            f"{number}행: {result.fields if isinstance(result, InvalidInput) else result}"
            for number, result in enumerate(results, 1)
            if isinstance(result, Exception)
        ]
        if problems:
            raise EvalUsageError(
                f"--fixture {path}: {len(problems)}개 줄을 읽지 못했습니다 ({'; '.join(problems[:3])})"
            )
        counts = {"lines": len(lines)}
    else:
        try:
            counts = shop_fixture_load(data=shop_fixture_read(path), restore=False)
        except (KeyError, TypeError, ValueError) as exc:
            raise EvalUsageError(
                f"--fixture {path}: 쇼핑몰 데이터 형식이 아닙니다 ({type(exc).__name__}: {exc})"
            ) from exc
    demo_accounts_ensure(password=settings.CS_DEMO_PASSWORD)
    return counts


@contextmanager
def scratch_database(*, keep: bool = False, fixture: Path | None = None):
    """A fresh database next to the configured one (Django's test-database machinery: `<name>_eval_scratch`
    on PostgreSQL, a temporary file on SQLite), migrated and seeded with the demo shop or `fixture`; dropped
    afterwards."""
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
            if fixture is None:
                demo_seed(password=settings.CS_DEMO_PASSWORD, knowledge=False)
            else:
                fixture_load(fixture)
            yield
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=keep)
            test_settings["NAME"] = old_test_name


@contextmanager
def scratch_database_with_knowledge(*, keep: bool = False, fixture: Path | None = None):
    """The scratch shop plus tags, FAQ, indexed documents and (for the demo shop) its service events."""
    with scratch_database(keep=keep, fixture=fixture):
        demo_knowledge_seed(service_events=fixture is None)
        yield


def _prices_checked(prices: tuple[float, float] | None, currency: str) -> None:
    if currency not in CURRENCIES:
        raise EvalUsageError(f"--currency {currency}: {', '.join(CURRENCIES)} 중 하나여야 합니다")
    if prices is not None and min(prices) < 0:
        raise EvalUsageError("--price-in, --price-out은 0 이상이어야 합니다")


def _clock() -> tuple[str, float]:
    return datetime.now().isoformat(timespec="seconds"), time.monotonic()


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
    currency: str = "USD",
    progress: bool = False,
    tasks_dir: Path | None = None,
    fixture: Path | None = None,
    current_database: bool = False,
) -> AgentEvalOutcome:
    """`current_database`: the run is on the configured database, which has a history (a walkthrough, real
    traffic): each trial first puts back the fixture the tasks are written against (`fixture`, else the
    demo's for the bundled suite; a shop's own folder without a fixture runs on its data as it is)."""
    models_check(model=model, user_model=user_model, judge_model=judge_model)
    _prices_checked(prices, currency)
    tasks = task_list(selector, directory=tasks_dir or TASKS_DIR)
    if not tasks:
        raise EvalUsageError(f"고른 과제가 없습니다: {selector or '(전체)'} in {tasks_dir or TASKS_DIR}")
    baseline = None
    if current_database and (fixture or not tasks_dir):
        baseline = fixture_baseline(shop_fixture_read(fixture or settings.FIXTURES_DIR / "shop.json"))
    started, clock = _clock()
    with run_logging(out_dir), model_settings(model) as model_name:
        results = suite_run(
            tasks,
            trials=trials,
            user_model=user_model,
            judge_model=judge_model,
            concurrency=concurrency,
            progress=progress,
            baseline=baseline,
        )
        meta = {
            "model": model_name,
            "base_url": None if is_offline() else settings.OPENAI_BASE_URL,
            "user": user_model or "scripted",
            "judge": judge_model,
            "selector": selector,
            "tasks_dir": str(tasks_dir) if tasks_dir else None,
            "fixture": str(fixture) if fixture else None,
            "windows": {"return_days": settings.CS_RETURN_DAYS, "defect_days": settings.CS_DEFECT_DAYS},
            "started_at": started,
            "finished_at": datetime.now().isoformat(timespec="seconds"),
            "duration_s": round(time.monotonic() - clock, 1),
            "today": sorted({r.today for r in results if r.today}),
        }
    report = report_build([r.as_dict() for r in results], meta=meta, prices=prices, currency=currency)
    json_path, md_path = report_write(report, out_dir)
    return AgentEvalOutcome(report, json_path, md_path)


def drafts_eval_run(
    *,
    selector: str | None,
    model: str | None,
    out_dir: Path,
    decisions: list | None = None,
    ratings: dict | None = None,
    progress: bool = False,
    cases_dir: Path | None = None,
    fixture: Path | None = None,
) -> AgentEvalOutcome:
    """Run the golden set. `decisions`: real operator decisions read beforehand from the shop's own database
    (the golden set runs on a scratch database that has none)."""
    models_check(model=model)
    cases = draft_case_list(selector, directory=cases_dir or CASES_DIR)
    if not cases:
        raise EvalUsageError(f"고른 초안 사례가 없습니다: {selector or '(전체)'} in {cases_dir or CASES_DIR}")
    decisions = decided_drafts() if decisions is None else decisions
    started, clock = _clock()
    first_call = last_call_id()
    with (
        run_logging(out_dir),
        model_settings(model) as model_name,
        override_settings(CS_AI_PIPELINE_SEQUENTIAL=False),
    ):
        scores = [draft_case_run(case) for case in tqdm(cases, disable=not progress, unit="case", desc="drafts")]
    report = drafts_report_build(
        scores,
        meta={
            "model": model_name,
            "selector": selector,
            "cases_dir": str(cases_dir) if cases_dir else None,
            "fixture": str(fixture) if fixture else None,
            "started_at": started,
            "finished_at": datetime.now().isoformat(timespec="seconds"),
            "duration_s": round(time.monotonic() - clock, 1),
        },
        decisions_auroc=confidence_auroc(decisions),
        decisions=len(decisions),
        calls=model_calls_since(first_call),
    )
    report["operator_ratings"] = ratings
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "drafts-report.json", out_dir / "drafts-report.md"
    json_path.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    md_path.write_text(drafts_report_markdown(report), encoding="utf-8")
    return AgentEvalOutcome(report, json_path, md_path)


# --- comparing two runs -----------------------------------------------------------------------------------
def eval_report_load(ref: str) -> tuple[str, dict]:
    """An agent run's report by the number the admin shows (EvalRun id) or by its report.json (or folder)."""
    if ref.isdigit():
        run = EvalRun.objects.filter(pk=int(ref)).first()
        if run is None:
            raise EvalUsageError(f"{ref}: 그런 평가 실행이 없습니다 (관리 화면의 번호)")
        if run.suite != EvalRun.Suite.AGENT:
            raise EvalUsageError(f"{ref}: 에이전트 평가 실행이 아닙니다")
        return f"#{run.pk} {run.model}", run.report
    path = Path(ref)
    path = path / "report.json" if path.is_dir() else path
    if not path.is_file():
        raise EvalUsageError(f"{ref}: report.json도 평가 실행 번호도 아닙니다")
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise EvalUsageError(f"{path}: JSON이 아닙니다 ({exc})") from exc
    if "task_results" not in report or "per_category" not in report:
        raise EvalUsageError(f"{path}: 에이전트 평가 보고서가 아닙니다")
    return str(path.parent.name or path), report


def eval_compare_run(
    *, ref_a: str, ref_b: str, prices: tuple[float, float] | None, currency: str, out_dir: Path | None
) -> tuple[dict, str]:
    """Compare two agent runs; with `out_dir`, also write compare.json and compare.md there."""
    _prices_checked(prices, currency)
    label_a, a = eval_report_load(ref_a)
    label_b, b = eval_report_load(ref_b)
    comparison = compare_build(a, b, labels=(label_a, label_b), prices=prices, currency=currency)
    markdown = compare_markdown(comparison)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "compare.json").write_text(
            json.dumps(comparison, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
        )
        (out_dir / "compare.md").write_text(markdown, encoding="utf-8")
    return comparison, markdown

"""Run the agent task suite: `manage.py eval_agent [--model M] [--user-model U] [--judge-model J]
[--trials K] [--tasks SELECTOR] [--tasks-dir DIR] [--fixture FILE] [--concurrency N] [--out DIR]`.

Exit codes: 0 a valid run; 2 nothing was run (a model named with no endpoint, no task selected, a bad
option); 3 the run is invalid (more than 5% of its model calls failed): the report is written, greyed."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from evals.ratings import eval_run_record
from evals.report import CURRENCIES
from evals.services import EvalUsageError, agent_eval_run, models_check, scratch_database

USAGE = 2
INVALID = 3


class Command(BaseCommand):
    help = "Measure the chat agent on evals/tasks/*.json (pass^k, policy violations, attack success)."

    def add_arguments(self, parser):
        parser.add_argument("--model", help="model name on OPENAI_BASE_URL, or 'offline' for the built-in model")
        parser.add_argument("--user-model", help="simulate the customer with this model (default: scripted user)")
        parser.add_argument("--judge-model", help="judge natural-language assertions with this model")
        parser.add_argument("--trials", type=int, default=1, help="trials per task (k of pass^k)")
        parser.add_argument("--tasks", help="ids, globs (exchange_*), category:NAME or attack:GOAL, comma-separated")
        parser.add_argument(
            "--tasks-dir", help="read the tasks from this folder instead of evals/tasks (a shop's own suite)"
        )
        parser.add_argument(
            "--fixture",
            help="seed the scratch database with this shop's catalogue, customers and orders instead of the demo "
            "(fixtures/shop.json's form, or the import_shop JSONL)",
        )
        parser.add_argument("--concurrency", type=int, default=1, help="trials in parallel (PostgreSQL only)")
        parser.add_argument("--out", help="report directory (default var/evals/agent-<time>)")
        parser.add_argument("--price-in", type=float, help="price per million input tokens, for the cost")
        parser.add_argument("--price-out", type=float, help="price per million output tokens")
        parser.add_argument("--currency", default="USD", choices=CURRENCIES, help="the prices' currency")
        parser.add_argument(
            "--database",
            choices=("scratch", "current"),
            default="scratch",
            help="scratch: a fresh migrated+seeded database dropped afterwards (default); current: the "
            "configured one, each trial starting from the fixture's orders and stock with the customer's earlier "
            "records set aside (every trial is rolled back either way)",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        if opts["trials"] < 1:
            raise CommandError("--trials는 1 이상이어야 합니다", returncode=USAGE)
        tasks_dir = Path(opts["tasks_dir"]) if opts["tasks_dir"] else None
        fixture = Path(opts["fixture"]) if opts["fixture"] else None
        if tasks_dir and not tasks_dir.is_dir():
            raise CommandError(f"--tasks-dir {tasks_dir}: 폴더가 없습니다", returncode=USAGE)
        if fixture and not fixture.is_file():
            raise CommandError(f"--fixture {fixture}: 파일이 없습니다", returncode=USAGE)
        if (opts["price_in"] is None) != (opts["price_out"] is None):
            raise CommandError("--price-in과 --price-out을 함께 주세요", returncode=USAGE)
        out = Path(opts["out"] or settings.BASE_DIR / "var" / "evals" / f"agent-{datetime.now():%Y%m%d-%H%M%S}")
        prices = (opts["price_in"], opts["price_out"]) if opts["price_in"] is not None else None
        kwargs = dict(
            selector=opts["tasks"],
            model=opts["model"],
            user_model=opts["user_model"],
            judge_model=opts["judge_model"],
            trials=opts["trials"],
            concurrency=opts["concurrency"],
            out_dir=out,
            prices=prices,
            currency=opts["currency"],
            progress=not opts["no_progress"],
            tasks_dir=tasks_dir,
            fixture=fixture,
            current_database=opts["database"] == "current",
        )
        try:
            models_check(model=opts["model"], user_model=opts["user_model"], judge_model=opts["judge_model"])
            if opts["database"] == "scratch":
                with scratch_database(fixture=fixture):
                    outcome = agent_eval_run(**kwargs)
            else:
                outcome = agent_eval_run(**kwargs)
        except EvalUsageError as exc:
            raise CommandError(str(exc), returncode=USAGE) from exc
        r = outcome.report
        try:  # kept in the shop's own database for the admin page (the scratch database is gone by now)
            eval_run_record(suite="AGENT", model=str(r["meta"].get("model")), report=r)
        except DatabaseError:
            self.stderr.write(
                "관리 화면에 기록하지 못했습니다: 데이터베이스가 마이그레이션되지 않았습니다 (manage.py migrate)"
            )
        ks = " ".join(f"pass^{k}={v if v is None else round(v, 3)}" for k, v in r["pass_hat_k"].items())
        validity = r["validity"]
        self.stdout.write(
            f"tasks={r['tasks']} {ks} policy_violations={len(r['policy_violations'])} "
            f"utility={r['utility']} utility_under_attack={r['utility_under_attack']} "
            f"asr_code_preventable={r['attack_success_rate_code_preventable']} "
            f"asr_model_only={r['attack_success_rate_model_only']} "
            f"model_calls={validity['model_calls']} model_calls_failed={validity['model_calls_failed']} "
            f"failed_trials={validity['failed_units']} duration_s={r['meta']['duration_s']}"
        )
        self.stdout.write(f"report: {outcome.json_path} {outcome.md_path}")
        if not outcome.valid:
            raise CommandError(f"무효한 실행: {'; '.join(validity['reasons'])}", returncode=INVALID)

"""Run the agent task suite: `manage.py eval_agent [--model M] [--user-model U] [--judge-model J]
[--trials K] [--tasks SELECTOR] [--tasks-dir DIR] [--fixture FILE] [--concurrency N] [--out DIR]`.

Exit codes: 0 a valid run; 2 nothing was run (a model named with no endpoint, no task selected, a bad
option); 3 the run is invalid (more than 5% of its model calls failed): the report is written, greyed."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evals.cli import USAGE, eval_command_run, suite_arguments, suite_paths
from evals.report import CURRENCIES
from evals.services import agent_eval_run, models_check, scratch_database


class Command(BaseCommand):
    help = "Measure the chat agent on evals/tasks/*.json (pass^k, policy violations, attack success)."

    def add_arguments(self, parser):
        suite_arguments(
            parser,
            name="agent",
            model_help="model name on OPENAI_BASE_URL, or 'offline' for the built-in model",
            fixture_help="seed the scratch database with this shop's catalogue, customers and orders instead of the "
            "demo (fixtures/shop.json's form, or the import_shop JSONL)",
        )
        parser.add_argument("--user-model", help="simulate the customer with this model (default: scripted user)")
        parser.add_argument("--judge-model", help="judge natural-language assertions with this model")
        parser.add_argument("--trials", type=int, default=1, help="trials per task (k of pass^k)")
        parser.add_argument("--tasks", help="ids, globs (exchange_*), category:NAME or attack:GOAL, comma-separated")
        parser.add_argument(
            "--tasks-dir", help="read the tasks from this folder instead of evals/tasks (a shop's own suite)"
        )
        parser.add_argument("--concurrency", type=int, default=1, help="trials in parallel (PostgreSQL only)")
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

    def handle(self, *args, **opts):
        if opts["trials"] < 1:
            raise CommandError("--trials는 1 이상이어야 합니다", returncode=USAGE)
        tasks_dir = Path(opts["tasks_dir"]) if opts["tasks_dir"] else None
        if tasks_dir and not tasks_dir.is_dir():
            raise CommandError(f"--tasks-dir {tasks_dir}: 폴더가 없습니다", returncode=USAGE)
        fixture, out = suite_paths(opts, name="agent")
        if (opts["price_in"] is None) != (opts["price_out"] is None):
            raise CommandError("--price-in과 --price-out을 함께 주세요", returncode=USAGE)
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
        eval_command_run(
            self,
            suite="AGENT",
            check=lambda: models_check(
                model=opts["model"], user_model=opts["user_model"], judge_model=opts["judge_model"]
            ),
            run=lambda: agent_eval_run(**kwargs),
            scratch=(lambda: scratch_database(fixture=fixture)) if opts["database"] == "scratch" else None,
            summary=_summary,
        )


def _summary(r: dict) -> str:
    ks = " ".join(f"pass^{k}={v if v is None else round(v, 3)}" for k, v in r["pass_hat_k"].items())
    validity = r["validity"]
    return (
        f"tasks={r['tasks']} {ks} policy_violations={len(r['policy_violations'])} "
        f"utility={r['utility']} utility_under_attack={r['utility_under_attack']} "
        f"asr_code_preventable={r['attack_success_rate_code_preventable']} "
        f"asr_model_only={r['attack_success_rate_model_only']} "
        f"model_calls={validity['model_calls']} model_calls_failed={validity['model_calls_failed']} "
        f"failed_trials={validity['failed_units']} duration_s={r['meta']['duration_s']}"
    )

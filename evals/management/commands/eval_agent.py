"""Run the agent task suite: `manage.py eval_agent [--model M] [--user-model U] [--judge-model J]
[--trials K] [--tasks SELECTOR] [--concurrency N] [--out DIR]`."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from evals.ratings import eval_run_record
from evals.services import agent_eval_run, scratch_database


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
        parser.add_argument("--concurrency", type=int, default=1, help="trials in parallel (PostgreSQL only)")
        parser.add_argument("--out", help="report directory (default var/evals/agent-<time>)")
        parser.add_argument("--price-in", type=float, help="price per million input tokens, for cost per task")
        parser.add_argument("--price-out", type=float, help="price per million output tokens")
        parser.add_argument(
            "--database",
            choices=("scratch", "current"),
            default="scratch",
            help="scratch: a fresh migrated+seeded database dropped afterwards (default); current: the "
            "configured one, which must hold the demo shop (every trial is rolled back either way)",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        if opts["trials"] < 1:
            raise CommandError("--trials must be at least 1")
        if opts["tasks_dir"] and not Path(opts["tasks_dir"]).is_dir():
            raise CommandError(f"--tasks-dir {opts['tasks_dir']}: no such folder")
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
            prices=(prices[0], opts["price_out"] or 0.0) if prices else None,
            progress=not opts["no_progress"],
            tasks_dir=Path(opts["tasks_dir"]) if opts["tasks_dir"] else None,
        )
        try:
            if opts["database"] == "scratch":
                with scratch_database():
                    outcome = agent_eval_run(**kwargs)
            else:
                outcome = agent_eval_run(**kwargs)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        r = outcome.report
        try:  # kept in the shop's own database for the admin page (the scratch database is gone by now)
            eval_run_record(suite="AGENT", model=str(r["meta"].get("model")), report=r)
        except DatabaseError:
            self.stderr.write("not recorded in the admin: the database is not migrated (manage.py migrate)")
        ks = " ".join(f"pass^{k}={v if v is None else round(v, 3)}" for k, v in r["pass_hat_k"].items())
        self.stdout.write(
            f"tasks={r['tasks']} {ks} policy_violations={len(r['policy_violations'])} "
            f"utility={r['utility']} utility_under_attack={r['utility_under_attack']} "
            f"asr_code_preventable={r['attack_success_rate_code_preventable']} "
            f"asr_model_only={r['attack_success_rate_model_only']}"
        )
        self.stdout.write(f"report: {outcome.json_path} {outcome.md_path}")

"""Two agent runs side by side: `manage.py eval_compare RUN_A RUN_B [--price-in X --price-out Y]
[--currency KRW|USD] [--out DIR]`. A run is a report.json (or its folder) or the number of an EvalRun in the
admin. Prints the comparison as Markdown; exit 2 when a run cannot be read."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evals.cli import USAGE
from evals.report import CURRENCIES
from evals.services import EvalUsageError, eval_compare_run


class Command(BaseCommand):
    help = "Compare two eval_agent runs: pass^k per category, attack success, latency, tokens, cost, tasks that differ."

    def add_arguments(self, parser):
        parser.add_argument("run_a", help="report.json, its folder, or an EvalRun number")
        parser.add_argument("run_b", help="report.json, its folder, or an EvalRun number")
        parser.add_argument("--price-in", type=float, help="price per million input tokens (both runs)")
        parser.add_argument("--price-out", type=float, help="price per million output tokens (both runs)")
        parser.add_argument("--currency", default="USD", choices=CURRENCIES)
        parser.add_argument("--out", help="also write compare.md and compare.json here")

    def handle(self, *args, **opts):
        if (opts["price_in"] is None) != (opts["price_out"] is None):
            raise CommandError("--price-in과 --price-out을 함께 주세요", returncode=USAGE)
        prices = (opts["price_in"], opts["price_out"]) if opts["price_in"] is not None else None
        try:
            _, markdown = eval_compare_run(
                ref_a=opts["run_a"],
                ref_b=opts["run_b"],
                prices=prices,
                currency=opts["currency"],
                out_dir=Path(opts["out"]) if opts["out"] else None,
            )
        except EvalUsageError as exc:
            raise CommandError(str(exc), returncode=USAGE) from exc
        self.stdout.write(markdown)

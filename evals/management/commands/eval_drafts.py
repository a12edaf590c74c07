"""Run the draft golden set: `manage.py eval_drafts [--model M] [--cases SELECTOR] [--out DIR]`."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from evals.drafts_eval import decided_drafts
from evals.ratings import eval_run_record, ratings_summary
from evals.services import drafts_eval_run, scratch_database_with_knowledge


class Command(BaseCommand):
    help = "Score the draft pipeline on evals/drafts/*.json (citations, key points, must-not, verdicts, AUROC)."

    def add_arguments(self, parser):
        parser.add_argument("--model", help="model name on OPENAI_BASE_URL, or 'offline'")
        parser.add_argument("--cases", help="case ids or globs, comma-separated")
        parser.add_argument("--out", help="report directory (default var/evals/drafts-<time>)")
        parser.add_argument("--database", choices=("scratch", "current"), default="scratch")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        out = Path(opts["out"] or settings.BASE_DIR / "var" / "evals" / f"drafts-{datetime.now():%Y%m%d-%H%M%S}")
        # Operator decisions live in the shop's own database: read them before switching to the scratch one.
        try:
            decisions, ratings = decided_drafts(), ratings_summary()
        except DatabaseError:  # the shop's database is not migrated: no decisions or ratings to learn from
            decisions, ratings = [], None
        kwargs = dict(
            selector=opts["cases"],
            model=opts["model"],
            out_dir=out,
            decisions=decisions,
            ratings=ratings,
            progress=not opts["no_progress"],
        )
        try:
            if opts["database"] == "scratch":
                with scratch_database_with_knowledge():
                    outcome = drafts_eval_run(**kwargs)
            else:
                outcome = drafts_eval_run(**kwargs)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        r = outcome.report
        try:  # kept in the shop's own database for the admin page (the scratch database is gone by now)
            eval_run_record(suite="DRAFTS", model=str(r["meta"].get("model")), report=r)
        except DatabaseError:
            self.stderr.write("not recorded in the admin: the database is not migrated (manage.py migrate)")
        self.stdout.write(
            f"cases={r['cases']} route_accuracy={r['route_accuracy']} citation_precision={r['citation_precision']} "
            f"citation_recall={r['citation_recall']} key_point_recall={r['key_point_recall']} "
            f"must_not_violations={r['must_not_violations']} verdict_accuracy={r['verdict_accuracy']} "
            f"diagnosis_leaks={r['diagnosis_leaks']} auroc={r['confidence_auroc']}"
        )
        self.stdout.write(f"report: {outcome.json_path} {outcome.md_path}")

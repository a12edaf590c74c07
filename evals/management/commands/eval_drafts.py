"""Run the draft golden set: `manage.py eval_drafts [--model M] [--cases SELECTOR] [--cases-dir DIR]
[--fixture FILE] [--out DIR]`.

Exit codes as eval_agent: 0 a valid run; 2 nothing was run; 3 the run is invalid (more than 5% of its model
calls failed): the report is written, greyed."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from evals.cli import USAGE, eval_command_run, suite_arguments, suite_paths
from evals.drafts_eval import decided_drafts
from evals.ratings import ratings_summary
from evals.services import drafts_eval_run, models_check, scratch_database_with_knowledge


class Command(BaseCommand):
    help = "Score the draft pipeline on evals/drafts/*.json (citations, key points, must-not, verdicts, AUROC)."

    def add_arguments(self, parser):
        suite_arguments(
            parser,
            name="drafts",
            model_help="model name on OPENAI_BASE_URL, or 'offline'",
            fixture_help="seed the scratch database with this shop's customers and orders instead of the demo",
        )
        parser.add_argument("--cases", help="case ids or globs, comma-separated")
        parser.add_argument("--cases-dir", help="read the cases from this folder instead of evals/drafts")
        parser.add_argument("--database", choices=("scratch", "current"), default="scratch")

    def handle(self, *args, **opts):
        cases_dir = Path(opts["cases_dir"]) if opts["cases_dir"] else None
        if cases_dir and not cases_dir.is_dir():
            raise CommandError(f"--cases-dir {cases_dir}: 폴더가 없습니다", returncode=USAGE)
        fixture, out = suite_paths(opts, name="drafts")
        if fixture and opts["database"] == "current":
            raise CommandError("--fixture는 임시 데이터베이스에만 넣습니다 (--database scratch)", returncode=USAGE)
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
            cases_dir=cases_dir,
            fixture=fixture,
        )
        eval_command_run(
            self,
            suite="DRAFTS",
            check=lambda: models_check(model=opts["model"]),
            run=lambda: drafts_eval_run(**kwargs),
            scratch=(lambda: scratch_database_with_knowledge(fixture=fixture))
            if opts["database"] == "scratch"
            else None,
            summary=_summary,
        )


def _summary(r: dict) -> str:
    validity = r["validity"]
    return (
        f"cases={r['cases']} failed_drafts={r['failed_drafts']} route_accuracy={r['route_accuracy']} "
        f"route_balanced_accuracy={r['route_balanced_accuracy']} citation_precision={r['citation_precision']} "
        f"citation_recall={r['citation_recall']} key_point_recall={r['key_point_recall']} "
        f"must_not_violations={r['must_not_violations']} verdict_accuracy={r['verdict_accuracy']} "
        f"diagnosis_leaks={r['diagnosis_leaks']} auroc={r['confidence_auroc']} "
        f"model_calls={validity['model_calls']} model_calls_failed={validity['model_calls_failed']} "
        f"duration_s={r['meta']['duration_s']}"
    )

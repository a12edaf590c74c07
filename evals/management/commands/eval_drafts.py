"""Run the draft golden set: `manage.py eval_drafts [--model M] [--cases SELECTOR] [--cases-dir DIR]
[--fixture FILE] [--out DIR]`.

Exit codes as eval_agent: 0 a valid run; 2 nothing was run; 3 the run is invalid (more than 5% of its model
calls failed): the report is written, greyed."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from evals.drafts_eval import decided_drafts
from evals.management.commands.eval_agent import INVALID, USAGE
from evals.ratings import eval_run_record, ratings_summary
from evals.services import EvalUsageError, drafts_eval_run, models_check, scratch_database_with_knowledge


class Command(BaseCommand):
    help = "Score the draft pipeline on evals/drafts/*.json (citations, key points, must-not, verdicts, AUROC)."

    def add_arguments(self, parser):
        parser.add_argument("--model", help="model name on OPENAI_BASE_URL, or 'offline'")
        parser.add_argument("--cases", help="case ids or globs, comma-separated")
        parser.add_argument("--cases-dir", help="read the cases from this folder instead of evals/drafts")
        parser.add_argument(
            "--fixture", help="seed the scratch database with this shop's customers and orders instead of the demo"
        )
        parser.add_argument("--out", help="report directory (default var/evals/drafts-<time>)")
        parser.add_argument("--database", choices=("scratch", "current"), default="scratch")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        cases_dir = Path(opts["cases_dir"]) if opts["cases_dir"] else None
        fixture = Path(opts["fixture"]) if opts["fixture"] else None
        if cases_dir and not cases_dir.is_dir():
            raise CommandError(f"--cases-dir {cases_dir}: 폴더가 없습니다", returncode=USAGE)
        if fixture and not fixture.is_file():
            raise CommandError(f"--fixture {fixture}: 파일이 없습니다", returncode=USAGE)
        if fixture and opts["database"] == "current":
            raise CommandError("--fixture는 임시 데이터베이스에만 넣습니다 (--database scratch)", returncode=USAGE)
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
            cases_dir=cases_dir,
            fixture=fixture,
        )
        try:
            models_check(model=opts["model"])
            if opts["database"] == "scratch":
                with scratch_database_with_knowledge(fixture=fixture):
                    outcome = drafts_eval_run(**kwargs)
            else:
                outcome = drafts_eval_run(**kwargs)
        except EvalUsageError as exc:
            raise CommandError(str(exc), returncode=USAGE) from exc
        r = outcome.report
        try:  # kept in the shop's own database for the admin page (the scratch database is gone by now)
            eval_run_record(suite="DRAFTS", model=str(r["meta"].get("model")), report=r)
        except DatabaseError:
            self.stderr.write(
                "관리 화면에 기록하지 못했습니다: 데이터베이스가 마이그레이션되지 않았습니다 (manage.py migrate)"
            )
        validity = r["validity"]
        self.stdout.write(
            f"cases={r['cases']} failed_drafts={r['failed_drafts']} route_accuracy={r['route_accuracy']} "
            f"route_balanced_accuracy={r['route_balanced_accuracy']} citation_precision={r['citation_precision']} "
            f"citation_recall={r['citation_recall']} key_point_recall={r['key_point_recall']} "
            f"must_not_violations={r['must_not_violations']} verdict_accuracy={r['verdict_accuracy']} "
            f"diagnosis_leaks={r['diagnosis_leaks']} auroc={r['confidence_auroc']} "
            f"model_calls={validity['model_calls']} model_calls_failed={validity['model_calls_failed']} "
            f"duration_s={r['meta']['duration_s']}"
        )
        self.stdout.write(f"report: {outcome.json_path} {outcome.md_path}")
        if not outcome.valid:
            raise CommandError(f"무효한 실행: {'; '.join(validity['reasons'])}", returncode=INVALID)

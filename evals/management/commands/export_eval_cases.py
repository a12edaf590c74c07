"""Turn rated drafts and real chats into new eval cases: `manage.py export_eval_cases --since 2026-07-01`."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evals.ratings import eval_cases_export


class Command(BaseCommand):
    help = "Write rated drafts and chats since DATE as masked eval cases for review (var/evals/exported/)."

    def add_arguments(self, parser):
        parser.add_argument("--since", required=True, help="YYYY-MM-DD")
        parser.add_argument("--out", help="directory (default var/evals/exported)")

    def handle(self, *args, **opts):
        try:
            since = date.fromisoformat(opts["since"])
        except ValueError as exc:
            raise CommandError("--since must be YYYY-MM-DD") from exc
        out = Path(opts["out"] or settings.BASE_DIR / "var" / "evals" / "exported")
        counts = eval_cases_export(since=since, out_dir=out)
        self.stdout.write(f"draft_cases={counts['drafts']} tasks={counts['tasks']} out={out}")

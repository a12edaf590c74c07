"""Print the operations metrics (Asia/Seoul days): `cs_metrics [--since D] [--until D] [--format table|json]`."""

from __future__ import annotations

import argparse
import json
from datetime import date

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from common.clock import today
from metrics.formatting import metrics_table
from metrics.policy import range_problem
from metrics.selectors import metrics_compute


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from exc


class Command(BaseCommand):
    help = "운영 지표(초안 지연·채택률·실패·승인 대기열·에이전트 채팅)를 Asia/Seoul 날짜 기준으로 출력합니다."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--since", type=_day, help="first day, inclusive (YYYY-MM-DD, Asia/Seoul)")
        parser.add_argument("--until", type=_day, help="last day, inclusive (YYYY-MM-DD, Asia/Seoul)")
        parser.add_argument("--format", choices=("table", "json"), default="table")

    def handle(self, *args, since: date | None, until: date | None, format: str, **options) -> None:
        if since and until and since > until:
            raise CommandError(f"--since {since} is after --until {until}")
        problem = range_problem(since, until, today=today(), max_days=settings.CS_METRICS_MAX_DAYS)
        if problem:
            raise CommandError(problem)
        report = metrics_compute(since=since, until=until)
        if format == "json":
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(metrics_table(report), ending="")

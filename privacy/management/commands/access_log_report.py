import csv
import sys

from django.core.management.base import BaseCommand, CommandError

from privacy import policy
from privacy.selectors import access_month_summary

COLUMNS = ("operator", "view", "list", "export", "change", "total", "customers", "unusual")


class Command(BaseCommand):
    help = "한 달 치 개인정보 접속기록을 상담원별로 세어 CSV로 씁니다 (월간 점검)."

    def add_arguments(self, parser):
        parser.add_argument("--month", required=True, help="YYYY-MM (Asia/Seoul), 예: 2026-11")
        parser.add_argument("--output", help="CSV 파일 경로 (없으면 표준 출력)")

    def handle(self, *args, month: str, output: str | None, **options):
        try:
            first = policy.parse_month(month)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        rows = access_month_summary(month=first)
        handle = open(output, "w", newline="", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
        try:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for row in rows:
                writer.writerow([getattr(row, c) if c != "unusual" else int(row.unusual) for c in COLUMNS])
        finally:
            if output:
                handle.close()
        if output:
            self.stderr.write(f"{first:%Y-%m}: {len(rows)} operators → {output}")

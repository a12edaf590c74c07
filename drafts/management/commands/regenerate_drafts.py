import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from common.numbering import parse_number
from drafts.services import drafts_regenerate


class Command(BaseCommand):
    help = (
        "열린 문의의 최신 고객 입력에 대해 AI 답변 초안을 다시 만든다: 없는 초안은 만들고, 끝나지 않은 단계는 "
        "마치고, 실패한 단계는 다시 실행한다. 완성된 초안은 다시 만들지 않는다(입력당 초안 하나). "
        "REDIS_URL이 있으면 Celery 워커에 맡기고, 없으면 이 프로세스에서 실행한다."
    )

    def add_arguments(self, parser):
        parser.add_argument("--ticket", help="이 티켓만 (예: T00001). 닫힌 티켓도 대상")
        parser.add_argument("--failed", action="store_true", help="실패(단계 실패·데드레터)한 것만")
        parser.add_argument("--no-progress", action="store_true", help="진행 막대를 숨김")

    def handle(self, *args, **options):
        ticket_id = None
        if options["ticket"]:
            ticket_id = parse_number("T", options["ticket"])
            if ticket_id is None:
                raise CommandError(f"티켓번호 형식이 아닙니다: {options['ticket']} (예: T00001)")

        def progress(items):
            return tqdm(items, desc="초안 재생성", unit="건", disable=options["no_progress"], file=sys.stderr)

        report = drafts_regenerate(ticket_id=ticket_id, failed_only=options["failed"], progress=progress)
        if not report.considered:
            self.stdout.write("다시 만들 초안이 없습니다.")
            return
        outcomes = ", ".join(f"{k}={v}" for k, v in sorted(report.outcomes.items()))
        self.stdout.write(self.style.SUCCESS(f"대상 {report.considered}건: {outcomes}"))

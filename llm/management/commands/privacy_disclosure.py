from django.core.management.base import BaseCommand

from common.clock import today
from llm.disclosure import disclosure_markdown


class Command(BaseCommand):
    help = "AI 모델로 보내는 정보의 고지문(위탁·국외 이전)을 Markdown으로 씁니다: 엔드포인트, 용도별 전송 항목, 보관."

    def add_arguments(self, parser):
        parser.add_argument("--output", help="파일 경로 (없으면 표준 출력)")

    def handle(self, *args, output: str | None, **options):
        text = disclosure_markdown(generated_on=today().isoformat())
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
            self.stderr.write(f"privacy disclosure → {output}")
        else:
            self.stdout.write(text)

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from common.errors import DomainError
from knowledge.selectors import index_status
from knowledge.services import knowledge_fixture_load, knowledge_index_build


def _default_fixtures_dir() -> Path:
    return Path(getattr(settings, "FIXTURES_DIR", Path(settings.BASE_DIR) / "fixtures")) / "knowledge"


class Command(BaseCommand):
    help = "지식 문서를 조각으로 나누고 Kiwi 토큰으로 검색 색인을 만든다 (--load-fixtures: FAQ·문서 파일을 먼저 반영)."

    def add_arguments(self, parser):
        parser.add_argument("--load-fixtures", action="store_true", help="faq.json과 *.md 문서를 먼저 upsert한다")
        parser.add_argument("--fixtures-dir", type=Path, default=None, help="기본: fixtures/knowledge")
        parser.add_argument("--doc", action="append", dest="doc_ids", metavar="DOC_ID", help="이 문서만 (여러 번 가능)")

    def handle(self, *args, **options):
        try:
            if options["load_fixtures"]:
                counts = knowledge_fixture_load(directory=options["fixtures_dir"] or _default_fixtures_dir())
                self.stdout.write(
                    "FAQ: 추가 {faq_created}, 변경 {faq_updated}, 그대로 {faq_unchanged} / "
                    "문서: 추가 {documents_created}, 변경 {documents_updated}, 그대로 {documents_unchanged}".format(
                        **counts
                    )
                )
            written = knowledge_index_build(document_ids=options["doc_ids"])
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        status = index_status()
        self.stdout.write(
            self.style.SUCCESS(
                f"조각 {written}개를 색인했습니다. 활성 문서 {status['documents']}개, 조각 {status['chunks']}개, "
                f"색인 {'최신' if status['built'] else '갱신 필요'}"
            )
        )

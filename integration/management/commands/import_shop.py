import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from common.actors import Actor
from common.errors import DomainError
from integration.errors import InvalidInput
from integration.models import Integration
from integration.services import shop_import_line


class Command(BaseCommand):
    help = "JSONL 파일(한 줄에 customer/product/order 하나)을 버전 기준으로 업서트합니다."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--integration", required=True, help="데이터를 소유할 연동 이름")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **options):
        integration = Integration.objects.filter(name=options["integration"]).first()
        if integration is None:
            raise CommandError(f"연동 '{options['integration']}'이(가) 없습니다.")
        actor = Actor.system("manage.py import_shop")
        applied = unchanged = 0
        errors: list[str] = []
        with open(options["file"], encoding="utf-8") as handle:
            lines = handle.readlines()
        for number, line in enumerate(tqdm(lines, unit="줄", disable=options["no_progress"], file=sys.stderr), 1):
            if not line.strip():
                continue
            try:
                result = shop_import_line(integration=integration, line=line, actor=actor)
            except InvalidInput as exc:
                errors.append(f"{number}: {exc.fields}")
                continue
            except DomainError as exc:
                errors.append(f"{number}: {exc.code} {exc.message}")
                continue
            if result.applied:
                applied += 1
            else:
                unchanged += 1
        for error in errors:
            self.stderr.write(f"line {error}")
        self.stdout.write(f"applied={applied} unchanged={unchanged} errors={len(errors)}")
        if errors:
            raise CommandError(f"{len(errors)}개 줄을 반영하지 못했습니다.")

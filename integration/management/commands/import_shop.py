import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from common.actors import Actor
from common.errors import DomainError
from integration.errors import InvalidInput
from integration.models import Integration
from integration.services.imports import IMPORT_CHUNK_SIZE, shop_import_batch


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
            numbered = [(number, line) for number, line in enumerate(handle, 1) if line.strip()]
        with tqdm(total=len(numbered), unit="줄", disable=options["no_progress"], file=sys.stderr) as progress:
            for start in range(0, len(numbered), IMPORT_CHUNK_SIZE):
                chunk = numbered[start : start + IMPORT_CHUNK_SIZE]
                results = shop_import_batch(integration=integration, lines=[line for _, line in chunk], actor=actor)
                for (number, _), result in zip(chunk, results, strict=True):
                    if isinstance(result, InvalidInput):
                        errors.append(f"{number}: {result.fields}")
                    elif isinstance(result, DomainError):
                        errors.append(f"{number}: {result.code} {result.message}")
                    elif result.applied:
                        applied += 1
                    else:
                        unchanged += 1
                progress.update(len(chunk))
        for error in errors:
            self.stderr.write(f"line {error}")
        self.stdout.write(f"applied={applied} unchanged={unchanged} errors={len(errors)}")
        if errors:
            raise CommandError(f"{len(errors)}개 줄을 반영하지 못했습니다.")

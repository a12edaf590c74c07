import json

from django.core.management.base import BaseCommand, CommandError

from common.actors import Actor
from integration.errors import InvalidInput
from integration.services.integrations import ALL_SCOPES, integration_create


class Command(BaseCommand):
    help = "쇼핑몰 연동을 만들고 API 키와 서명 비밀키를 한 번만 출력합니다."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--webhook-url", default="")
        parser.add_argument("--scopes", nargs="*", default=None, help=" ".join(ALL_SCOPES))
        parser.add_argument("--allowed-origins", nargs="*", default=None)
        parser.add_argument("--format", choices=["json", "text"], default="text")

    def handle(self, *args, **options):
        try:
            issued = integration_create(
                name=options["name"],
                webhook_url=options["webhook_url"],
                scopes=options["scopes"],
                allowed_origins=options["allowed_origins"],
                actor=Actor.system("manage.py integration_create"),
            )
        except InvalidInput as exc:
            raise CommandError(json.dumps(exc.fields, ensure_ascii=False)) from None
        out = {"name": issued.integration.name, "api_key": issued.api_key, "signing_secret": issued.signing_secret}
        if options["format"] == "json":
            self.stdout.write(json.dumps(out))
        else:
            for key, value in out.items():
                self.stdout.write(f"{key}: {value}")
            self.stdout.write("API 키와 서명 비밀키는 다시 볼 수 없습니다. 지금 안전한 곳에 보관하세요.")

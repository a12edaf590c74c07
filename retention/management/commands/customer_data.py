import json

from django.core.management.base import BaseCommand, CommandError

from common.errors import DomainError
from retention.policy import RULES
from retention.services import customer_data_erase, customer_data_export


class Command(BaseCommand):
    help = "고객 정보 열람(export: JSON 출력) 또는 삭제(erase: 법정 보존 기록은 근거를 표시하고 가명처리)."

    def add_arguments(self, parser):
        parser.add_argument("operation", choices=["export", "erase"])
        parser.add_argument("customer_id")

    def handle(self, *args, operation: str, customer_id: str, **options):
        try:
            if operation == "export":
                self.stdout.write(
                    json.dumps(customer_data_export(customer_id=customer_id), ensure_ascii=False, indent=2)
                )
                return
            report = customer_data_erase(customer_id=customer_id, actor_label="manage.py customer_data")
        except DomainError as exc:
            raise CommandError(str(exc)) from exc
        for label, count in report["destroyed"].items():
            self.stdout.write(f"파기 {label}: {count}건")
        for label, count in report["pseudonymised"].items():
            self.stdout.write(f"가명처리 {label}: {count}건 (이름·전화번호·이메일)")
        for label, rules in report["kept"].items():
            for rule, count in rules.items():
                self.stdout.write(f"보존 {label}: {count}건 — {RULES[rule].label}")

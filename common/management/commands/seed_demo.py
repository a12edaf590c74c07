import sys

from django.core.management.base import BaseCommand
from tqdm import tqdm

from common.demo import demo_seed


class Command(BaseCommand):
    help = (
        "데모 데이터(fixtures/)와 데모 계정을 만들고, 데모 문의를 접수해 AI 답변 초안을 준비한다. "
        "여러 번 실행해도 같은 상태가 된다."
    )

    def add_arguments(self, parser):
        parser.add_argument("--no-inquiries", action="store_true", help="데모 문의(과 초안)는 만들지 않음")
        parser.add_argument("--no-progress", action="store_true", help="진행 막대를 숨김")

    def handle(self, *args, **options):
        def progress(items):
            return tqdm(items, desc="데모 문의·초안", unit="건", disable=options["no_progress"], file=sys.stderr)

        counts, accounts = demo_seed(inquiries=not options["no_inquiries"], progress=progress)
        self.stdout.write("loaded: " + ", ".join(f"{k} +{v}" for k, v in counts.items()))
        self.stdout.write("demo logins (password: $CS_DEMO_PASSWORD, default demo1234):")
        for username, customer_id in accounts.customers:
            self.stdout.write(f"  customer  {username:10s} → {customer_id}")
        self.stdout.write(f"  operator  {accounts.operator:10s} (staff, 승인/반려·초안 검토 권한)")
        self.stdout.write(f"  admin     {accounts.admin:10s} (superuser)")

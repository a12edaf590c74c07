from django.core.management.base import BaseCommand

from common.demo import demo_seed


class Command(BaseCommand):
    help = "데모 데이터(fixtures/)와 데모 계정을 만든다. 여러 번 실행해도 같은 상태가 된다."

    def handle(self, *args, **options):
        counts, accounts = demo_seed()
        self.stdout.write(
            "loaded: " + ", ".join(f"{k} +{v}" for k, v in counts.items())
        )
        self.stdout.write("demo logins (password: $CS_DEMO_PASSWORD, default demo1234):")
        for username, customer_id in accounts.customers:
            self.stdout.write(f"  customer  {username:10s} → {customer_id}")
        self.stdout.write(f"  operator  {accounts.operator:10s} (staff, 승인/반려 권한)")
        self.stdout.write(f"  admin     {accounts.admin:10s} (superuser)")

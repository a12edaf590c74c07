from django.core.management.base import BaseCommand

from common.demo import demo_reset


class Command(BaseCommand):
    help = "처리 기록·티켓·대화를 지우고 주문과 재고를 fixtures/ 상태로 되돌린다."

    def handle(self, *args, **options):
        deleted = demo_reset()
        self.stdout.write("reset: " + ", ".join(f"{k} -{v}" for k, v in deleted.items()))
        self.stdout.write(self.style.SUCCESS("orders and stock restored from fixtures/shop.json"))

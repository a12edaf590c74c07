import time

from django.core.management.base import BaseCommand

from integration.simulator import ShopSimulator


class Command(BaseCommand):
    help = "참조용 쇼핑몰: 웹훅을 받아 서명을 검증하고, 실패율에 따라 응답하고, 환불·취소 결과를 데스크에 보고합니다."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument("--secret", required=True, help="integration_create가 출력한 signing_secret")
        parser.add_argument("--api-key", required=True)
        parser.add_argument("--desk-url", default="http://127.0.0.1:8000")
        parser.add_argument("--failure-rate", type=float, default=0.0)
        parser.add_argument("--fail-results", action="store_true", help="환불·취소를 실패로 보고")

    def handle(self, *args, **options):
        simulator = ShopSimulator(
            signing_secret=options["secret"],
            failure_rate=options["failure_rate"],
            desk_url=options["desk_url"].rstrip("/"),
            api_key=options["api_key"],
            auto_report=True,
            report_ok=not options["fail_results"],
        ).start(options["port"])
        self.stdout.write(f"shop_simulator listening url={simulator.url}")
        seen = 0
        try:
            while True:
                time.sleep(0.5)
                for event in simulator.received[seen:]:
                    self.stdout.write(f"event id={event.event_id} type={event.type} signature_ok={event.signature_ok}")
                seen = len(simulator.received)
        except KeyboardInterrupt:
            simulator.stop()

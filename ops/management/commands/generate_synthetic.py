from django.core.management.base import BaseCommand, CommandError

from ops.services import synthetic_generate


class Command(BaseCommand):
    help = (
        "부하 테스트용 합성 데이터를 bulk_create로 빠르게 넣는다: 고객(S00000001…), 주문(최근 날짜 기준 현실적인 "
        "상태·날짜), --inquiries 문의 티켓(첫 고객 메시지 포함), --pending-actions 승인대기 환불. 티켓은 "
        "ticket_create를 거치지 않으므로 AI 초안 작업이 예약되지 않는다. 같은 --seed는 같은 데이터를 만든다. "
        "Bulk-inserts synthetic customers, orders, tickets (no AI draft is enqueued) and pending refunds."
    )

    def add_arguments(self, parser):
        parser.add_argument("--customers", type=int, required=True, help="추가할 고객 수 (0이면 기존 합성 고객 사용)")
        parser.add_argument("--orders", type=int, required=True, help="추가할 주문 수")
        parser.add_argument("--inquiries", type=int, default=0, help="추가할 문의 티켓 수 (AI 초안 작업 없음)")
        parser.add_argument(
            "--pending-actions", type=int, default=0, help="승인대기 환불(REFUND) 수: 최근 30일 배송완료 주문당 하나"
        )
        parser.add_argument("--batch", type=int, default=5000, help="bulk_create 한 번(한 트랜잭션)의 행 수")
        parser.add_argument("--seed", type=int, default=0, help="난수 시드 (같은 DB 상태 + 같은 시드 = 같은 데이터)")
        parser.add_argument("--no-progress", action="store_true", help="진행 막대를 끈다")

    def handle(self, *args, **options):
        try:
            result = synthetic_generate(
                customers=options["customers"],
                orders=options["orders"],
                inquiries=options["inquiries"],
                pending_actions=options["pending_actions"],
                seed=options["seed"],
                batch=options["batch"],
                progress=not options["no_progress"] and options["verbosity"] > 0,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        timings = ", ".join(f"{phase} {seconds:.1f}s" for phase, seconds in result.seconds.items())
        self.stdout.write(
            self.style.SUCCESS(
                f"created customers={result.customers} orders={result.orders} tickets={result.tickets} "
                f"pending_actions={result.pending_actions} ({timings})"
            )
        )

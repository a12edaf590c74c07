from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from actions.services import action_decide
from common.errors import DomainError


class Command(BaseCommand):
    help = "승인대기 환불·취소 요청을 승인(--approve)하거나 반려(--reject)한다."

    def add_arguments(self, parser):
        parser.add_argument("action_id", help="처리번호 (예: A00001)")
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--approve", action="store_true")
        group.add_argument("--reject", action="store_true")
        parser.add_argument("--by", required=True, help="결정하는 상담원의 username")
        parser.add_argument("--note", default="", help="결정 메모")

    def handle(self, *args, **options):
        user = get_user_model().objects.filter(username=options["by"]).first()
        if user is None:
            raise CommandError(f"사용자 '{options['by']}'을(를) 찾을 수 없습니다.")
        try:
            record = action_decide(
                number=options["action_id"], approve=options["approve"], actor=user, note=options["note"]
            )
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        line = f"{record.number} {record.get_kind_display()} → {record.get_status_display()}"
        if record.refund_amount is not None:
            line += f" (주문 {record.order_id}: {record.order.get_status_display()}, 환불 {record.refund_amount:,}원)"
        self.stdout.write(self.style.SUCCESS(line))

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from chat.tools import make_action_tools
from common.actors import Actor
from orders.models import Customer


class Command(BaseCommand):
    help = "전화 상담 등에서 상담원이 고객 대신 도구를 실행한다. 에이전트와 같은 코드 경로를 쓴다."

    def add_arguments(self, parser):
        parser.add_argument("customer_id", help="고객 ID (예: C003)")
        parser.add_argument("tool", help="도구 이름 (예: request_refund)")
        parser.add_argument("--args", dest="tool_args", default="{}", help="도구 인자 JSON")
        parser.add_argument("--by", default=None, help="실행하는 상담원의 username (감사 기록용)")

    def handle(self, *args, **options):
        customer = Customer.objects.select_related("user").filter(pk=options["customer_id"].upper()).first()
        if customer is None:
            raise CommandError(f"고객 '{options['customer_id']}'을(를) 찾을 수 없습니다.")
        user = None
        if options["by"]:
            user = get_user_model().objects.filter(username=options["by"], is_staff=True).first()
            if user is None:
                raise CommandError(f"상담원 '{options['by']}'을(를) 찾을 수 없습니다.")
        tools = make_action_tools(customer, actor=Actor.staff_for(customer, user, via="run_tool"))
        result = tools.call(options["tool"], options["tool_args"])
        self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))

from django.core.management.base import BaseCommand

from retention.policy import RULES
from retention.services import retention_sweep


class Command(BaseCommand):
    help = "보존기간이 지난 기록을 파기하거나 가명처리합니다(--dry-run: 대상만 보여 주고 아무것도 바꾸지 않음)."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="바꾸지 않고 대상 건수만 출력")
        parser.add_argument("--limit", type=int, default=None, help="종류별 한 번에 처리할 최대 건수")

    def handle(self, *args, dry_run: bool, limit: int | None, **options):
        run = retention_sweep(dry_run=dry_run, limit=limit)
        verb = "대상" if dry_run else "처리"
        self.stdout.write(f"{'모의 실행' if dry_run else '실행'} #{run.pk} ({run.ran_at:%Y-%m-%d %H:%M})")
        for step, counts in run.by_rule.items():
            self.stdout.write(
                f"  {step}: 파기 {verb} {counts['destroyed']}건, 가명처리 {verb} {counts['pseudonymised']}건 "
                f"— {RULES[counts['rule']].label}"
            )
        self.stdout.write(f"합계: 파기 {run.destroyed}건, 가명처리 {run.pseudonymised}건")
        if not run.complete:
            self.stdout.write("남은 대상이 있습니다: 다음 실행에서 이어서 처리합니다.")

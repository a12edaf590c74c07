from django.core.management.base import BaseCommand, CommandError

from ops.checks import DEFAULT_TIMEOUT_S, doctor_checks


class Command(BaseCommand):
    help = (
        "배포 점검: 마이그레이션, DB, (REDIS_URL이 있으면) Redis와 Celery 워커, 모델 엔드포인트, 지식 색인, "
        "기능 플래그. 한 줄에 하나씩 출력하고 하나라도 실패하면 종료 코드 1."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="네트워크 점검 하나의 제한 시간(초)"
        )

    def handle(self, *args, **options):
        checks = doctor_checks(timeout_s=options["timeout"])
        for check in checks:
            if check.info:
                label = self.style.HTTP_INFO("[info]")
            elif check.ok:
                label = self.style.SUCCESS("[ ok ]")
            else:
                label = self.style.ERROR("[FAIL]")
            self.stdout.write(f"{label} {check.name}: {check.message}")
        failed = [c.name for c in checks if not c.ok]
        if failed:
            raise CommandError(f"doctor: {len(failed)} check(s) failed: {', '.join(failed)}", returncode=1)
        self.stdout.write(self.style.SUCCESS("doctor: all checks passed"))

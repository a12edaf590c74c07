from django.core.management.base import BaseCommand

from accounts.services import tokens_purge_expired


class Command(BaseCommand):
    help = "만료된 로그인 토큰을 지웁니다 (만료 토큰은 이미 거부되며, 표를 작게 유지할 뿐입니다)."

    def handle(self, *args, **options):
        deleted = tokens_purge_expired(actor=None)
        self.stdout.write(f"만료 토큰 {deleted}개를 지웠습니다.")

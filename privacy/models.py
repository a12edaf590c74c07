"""The access log (개인정보의 안전성 확보조치 기준 제8조): who looked at, listed, changed or exported which
customer's personal data, when and from where. Append-only: rows are written in bulk once per request and never
changed; only the retention purge (`privacy.services.access_records_purge`) removes rows, and only old ones.

Who and which customer are kept as plain values, not foreign keys: a deleted operator account or an erased
customer must not cascade into the log that records what was done with their data."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class AccessLogAppendOnly(Exception):
    """An attempt to change or delete an access record outside the retention purge."""


class AccessRecordQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AccessLogAppendOnly("접속기록은 수정할 수 없습니다.")

    def delete(self):
        raise AccessLogAppendOnly("접속기록은 삭제할 수 없습니다. 보존기간이 지난 기록만 자동으로 지워집니다.")


class AccessRecord(models.Model):
    class Action(models.TextChoices):
        VIEW = "VIEW", "열람"
        LIST = "LIST", "목록 조회"
        EXPORT = "EXPORT", "내보내기"
        CHANGE = "CHANGE", "수정"

    class ObjectType(models.TextChoices):
        CUSTOMER = "CUSTOMER", "고객"
        ORDER = "ORDER", "주문"
        TICKET = "TICKET", "문의 티켓"
        CONVERSATION = "CONVERSATION", "채팅 대화"
        DRAFT = "DRAFT", "답변 초안"
        ACTION_RECORD = "ACTION_RECORD", "처리 요청"
        SERVICE_EVENT = "SERVICE_EVENT", "진단 이벤트"

    class Surface(models.TextChoices):
        ADMIN = "ADMIN", "관리자 화면"
        API = "API", "직원용 연동"

    at = models.DateTimeField("일시", db_index=True)
    operator_id = models.BigIntegerField("상담원 ID", null=True, blank=True)
    operator = models.CharField("상담원", max_length=150)
    ip_address = models.GenericIPAddressField("접속 IP", null=True, blank=True)
    surface = models.CharField("경로", max_length=8, choices=Surface.choices)
    action = models.CharField("수행 업무", max_length=8, choices=Action.choices)
    object_type = models.CharField("대상 종류", max_length=16, choices=ObjectType.choices)
    object_id = models.CharField("대상 번호", max_length=64, blank=True)
    customer_id = models.CharField("정보주체(고객)", max_length=32, blank=True, db_index=True)
    reason = models.CharField("사유", max_length=500, blank=True)

    objects = AccessRecordQuerySet.as_manager()

    class Meta:
        verbose_name = "개인정보 접속기록"
        verbose_name_plural = "개인정보 접속기록"
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["operator_id", "at"], name="accessrecord_operator_at")]
        constraints = [
            # An export without a recorded reason is refused by the database too.
            models.CheckConstraint(
                condition=~Q(action="EXPORT") | ~Q(reason=""), name="accessrecord_export_has_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operator} {self.get_action_display()} {self.get_object_type_display()} {self.object_id}"

    def save(self, *args, **kwargs):
        # Append-only: a row already stored is never written again.
        if not self._state.adding:
            raise AccessLogAppendOnly("접속기록은 수정할 수 없습니다.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AccessLogAppendOnly("접속기록은 삭제할 수 없습니다.")

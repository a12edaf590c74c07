from django.db import models
from django.db.models import Q

from common.clock import now


class RetentionRun(models.Model):
    """One pass of the retention sweep (or a dry run of it): what it destroyed and pseudonymised, by rule."""

    ran_at = models.DateTimeField("실행일시", default=now)
    dry_run = models.BooleanField("모의 실행", default=False)
    destroyed = models.PositiveIntegerField("파기 건수", default=0)
    pseudonymised = models.PositiveIntegerField("가명처리 건수", default=0)
    # {step: {"rule": code, "destroyed": n, "pseudonymised": n}}; a dry run counts what would go.
    by_rule = models.JSONField("규칙별 내역", default=dict, blank=True)
    complete = models.BooleanField("남은 대상 없음", default=True)

    class Meta:
        verbose_name = "보존기간 경과 파기 실행"
        verbose_name_plural = "보존기간 경과 파기 실행"
        ordering = ["-ran_at", "-id"]

    def __str__(self) -> str:
        kind = "모의 실행" if self.dry_run else "실행"
        return f"{self.ran_at:%Y-%m-%d %H:%M} {kind}"


class RetentionMark(models.Model):
    """A row kept only because a law requires it (개인정보 보호법 제21조제3항: kept records are marked apart):
    which row, under which rule, until when. Written when a customer's erasure keeps a row."""

    model = models.CharField("기록 종류", max_length=64)  # app_label.ModelName
    object_pk = models.CharField("기록 ID", max_length=64)
    customer_id = models.CharField("고객 ID", max_length=16, db_index=True)
    rule = models.CharField("보존 근거", max_length=16)
    keep_until = models.DateTimeField("보존 기한")
    marked_at = models.DateTimeField("표시일시", default=now)

    class Meta:
        verbose_name = "법정 보존 표시"
        verbose_name_plural = "법정 보존 표시"
        ordering = ["customer_id", "model", "object_pk"]
        constraints = [
            models.UniqueConstraint(fields=["model", "object_pk"], name="retention_mark_one_per_row"),
            models.CheckConstraint(
                condition=Q(rule__in=["COMPLAINT", "CONTRACT", "PAYMENT", "ACCESS"]), name="retention_mark_rule_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.object_pk} ({self.rule})"

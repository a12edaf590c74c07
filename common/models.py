from django.db import models
from django.db.models import Q


class OutboxMessage(models.Model):
    """A durable request for work after a commit, written in the same transaction as the change that wants it.

    PENDING: committed, not (or no longer) handed to the broker; `next_attempt_at` says when to try.
    DISPATCHED: handed to the broker. DONE: the consumer finished. DEAD: gave up after
    `CS_OUTBOX_MAX_ATTEMPTS`; a person (or the owning app's sweep) re-opens it. HELD: the consumer put it aside
    until something a person switched off is on again (a paused shop); nothing dispatches it until the owning
    app releases it (`outbox_release`), and waiting is not a failed attempt.
    """

    class Status(models.TextChoices):
        PENDING = "PENDING", "대기"
        DISPATCHED = "DISPATCHED", "전달됨"
        DONE = "DONE", "완료"
        DEAD = "DEAD", "포기"
        HELD = "HELD", "보류"

    topic = models.CharField("주제", max_length=64)
    dedupe_key = models.CharField("중복 방지 키", max_length=200, unique=True)
    payload = models.JSONField("내용(식별자)", default=dict)
    status = models.CharField("상태", max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField("전달 시도", default=0)
    next_attempt_at = models.DateTimeField("다음 시도")
    last_error = models.CharField("마지막 오류", max_length=200, blank=True, default="")
    created_at = models.DateTimeField("생성", auto_now_add=True)
    dispatched_at = models.DateTimeField("전달 시각", null=True, blank=True)
    done_at = models.DateTimeField("완료 시각", null=True, blank=True)

    class Meta:
        verbose_name = "아웃박스 메시지"
        verbose_name_plural = "아웃박스 메시지"
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["next_attempt_at"], name="outbox_pending_due", condition=Q(status="PENDING")),
            models.Index(fields=["topic", "status"], name="outbox_topic_status"),
            models.Index(fields=["done_at"], name="outbox_done_at", condition=Q(status="DONE")),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["PENDING", "DISPATCHED", "DONE", "DEAD", "HELD"]), name="outbox_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic} {self.dedupe_key} {self.status}"

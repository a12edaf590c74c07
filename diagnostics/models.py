from django.db import models

from common.numbering import format_number
from diagnostics.labels import event_name_label
from diagnostics.policy import event_is_error


class ServiceEvent(models.Model):
    """One request log line, trace span or app usage event, as the observability stack recorded it.

    `message` and `attributes` are stored raw and may hold secrets or personal data:
    everything that reads them for people or models goes through `common.redaction`.
    """

    class Kind(models.TextChoices):
        REQUEST_LOG = "REQUEST_LOG", "요청로그"
        TRACE = "TRACE", "트레이스"
        USAGE_EVENT = "USAGE_EVENT", "이용이벤트"

    event_key = models.CharField("이벤트 키", max_length=64, unique=True)
    customer = models.ForeignKey(
        "orders.Customer",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="service_events",
        verbose_name="고객",
    )
    occurred_at = models.DateTimeField("발생일시")
    kind = models.CharField("종류", max_length=16, choices=Kind.choices)
    name = models.CharField("엔드포인트·이벤트명", max_length=200)
    http_method = models.CharField("HTTP 메서드", max_length=8, blank=True)
    status_code = models.PositiveSmallIntegerField("상태 코드", null=True, blank=True)
    latency_ms = models.PositiveIntegerField("소요시간(ms)", null=True, blank=True)
    trace_id = models.CharField("트레이스 ID", max_length=64, blank=True)
    span_name = models.CharField("스팬", max_length=200, blank=True)
    error_code = models.CharField("오류 코드", max_length=64, blank=True)
    message = models.TextField("메시지(원문)", blank=True)
    attributes = models.JSONField("속성", default=dict, blank=True)

    class Meta:
        verbose_name = "서비스 이벤트"
        verbose_name_plural = "서비스 이벤트"
        ordering = ["occurred_at", "id"]
        indexes = [models.Index(fields=["customer", "occurred_at"], name="svcevent_customer_time")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=["REQUEST_LOG", "TRACE", "USAGE_EVENT"]), name="svcevent_kind_valid"
            ),
        ]

    @property
    def event_id(self) -> str:
        return format_number("E", self.pk)

    @property
    def is_error(self) -> bool:
        return event_is_error(status_code=self.status_code, error_code=self.error_code)

    def __str__(self) -> str:
        return f"{self.event_id} {self.get_kind_display()} {event_name_label(kind=self.kind, name=self.name)}"

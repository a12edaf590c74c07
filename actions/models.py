from __future__ import annotations

from django.db import models
from django.db.models import Q

from common.actors import Actor
from common.audit import AuditEvent, decider_key, subject_key
from common.numbering import format_number


class ReasonCategory(models.TextChoices):
    CHANGE_OF_MIND = "CHANGE_OF_MIND", "단순변심"
    DEFECT = "DEFECT", "상품하자"
    WRONG_ITEM = "WRONG_ITEM", "오배송"
    UNCLEAR = "UNCLEAR", "확인필요"


class ActionRecord(models.Model):
    """The seed's 처리 기록: what the agent (or staff for a customer) did or asked for on an order."""

    class Kind(models.TextChoices):
        ADDRESS_CHANGE = "ADDRESS_CHANGE", "배송지변경"
        EXCHANGE = "EXCHANGE", "교환접수"
        REFUND = "REFUND", "환불요청"
        CANCEL = "CANCEL", "주문취소요청"

    class Status(models.TextChoices):
        DONE = "DONE", "완료"
        PENDING = "PENDING", "승인대기"
        APPROVED = "APPROVED", "승인완료"
        REJECTED = "REJECTED", "반려"
        # A connected shop carries out the money: approved, waiting for the shop's result.
        EXECUTING = "EXECUTING", "처리중"
        FAILED = "FAILED", "처리실패"

    MONEY_KINDS = (Kind.REFUND, Kind.CANCEL)

    customer = models.ForeignKey(
        "orders.Customer", on_delete=models.PROTECT, related_name="action_records", verbose_name="고객"
    )
    order = models.ForeignKey(
        "orders.Order", on_delete=models.PROTECT, related_name="action_records", verbose_name="주문"
    )
    kind = models.CharField("종류", max_length=16, choices=Kind.choices)
    status = models.CharField("상태", max_length=10, choices=Status.choices)
    reason_category = models.CharField(
        "사유 분류", max_length=16, choices=ReasonCategory.choices, blank=True, default=""
    )
    detail = models.JSONField("요청 내용", default=dict, blank=True)
    summary = models.CharField("내용", max_length=500)
    refund_amount = models.DecimalField("환불금액", max_digits=12, decimal_places=0, null=True, blank=True)
    reserved_option = models.ForeignKey(
        "orders.ProductOption",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="교환 예약 옵션",
    )
    decided_by = decider_key("결정자")
    decided_at = models.DateTimeField("결정일시", null=True, blank=True)
    decision_note = models.CharField("결정 메모", max_length=500, blank=True, default="")
    # The shop's "today" when the customer asked (CS_TODAY in demos): windows are counted to this day.
    requested_on = models.DateField("요청 기준일")
    created_at = models.DateTimeField("접수일시", auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "처리 기록"
        verbose_name_plural = "처리 기록"
        ordering = ["-id"]
        permissions = [("decide", "환불·취소 요청을 승인하거나 반려할 수 있음")]
        indexes = [
            models.Index(fields=["customer", "-id"], name="action_customer_recent"),
            models.Index(fields=["status", "id"], name="action_status_queue"),
        ]
        constraints = [
            # One open money request per order: concurrent refund requests collapse into one row.
            models.UniqueConstraint(
                fields=["order"],
                condition=Q(status="PENDING", kind__in=["REFUND", "CANCEL"]),
                name="one_pending_money_request_per_order",
            ),
            # An order is exchanged at most once (one reserved unit per order).
            models.UniqueConstraint(
                fields=["order"], condition=Q(kind="EXCHANGE", status="DONE"), name="one_exchange_per_order"
            ),
            # Reversible work is done at once; money requests only ever wait for a person.
            models.CheckConstraint(
                condition=(Q(kind__in=["ADDRESS_CHANGE", "EXCHANGE"]) & Q(status="DONE"))
                | (
                    Q(kind__in=["REFUND", "CANCEL"])
                    & Q(status__in=["PENDING", "APPROVED", "REJECTED", "EXECUTING", "DONE", "FAILED"])
                ),
                name="action_kind_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["APPROVED", "EXECUTING"], refund_amount__isnull=False)
                | ~Q(status__in=["APPROVED", "EXECUTING"]),
                name="action_approved_has_amount",
            ),
        ]

    @property
    def number(self) -> str:
        return format_number("A", self.pk)

    @property
    def status_label(self) -> str:
        """What a customer reads: a money request the shop carried out is 환불완료/취소완료, not just 완료."""
        if self.status == self.Status.DONE and self.kind == self.Kind.REFUND:
            return "환불완료"
        if self.status == self.Status.DONE and self.kind == self.Kind.CANCEL:
            return "취소완료"
        return self.get_status_display()

    def __str__(self) -> str:
        return f"{self.number} {self.get_kind_display()}"


class ActionEvent(AuditEvent):
    """Audit trail: one row per change of a record's status, written in the same transaction as the change.
    The statuses are columns (the desk filters on them); the payload stays empty."""

    subject_field = "record"
    record = subject_key(ActionRecord, "처리 기록")
    from_status = models.CharField(
        "이전 상태", max_length=10, blank=True, default="", choices=ActionRecord.Status.choices
    )
    to_status = models.CharField("새 상태", max_length=10, choices=ActionRecord.Status.choices)
    note = models.CharField("메모", max_length=500, blank=True, default="")

    class Meta(AuditEvent.Meta):
        verbose_name = "처리 이력"
        verbose_name_plural = "처리 이력"

    def __str__(self) -> str:
        return f"{self.get_from_status_display() or '-'} → {self.get_to_status_display()}"

    @classmethod
    def transition(cls, record: ActionRecord, *, actor: Actor, before: str, after: str, note: str = "") -> ActionEvent:
        """The (unsaved) row of a record moving from `before` ("" when it is new) to `after`."""
        return cls.build(record=record, actor=actor, from_status=before, to_status=after, note=note[:500])

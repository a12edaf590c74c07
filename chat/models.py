import uuid

from django.db import models


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    customer = models.ForeignKey(
        "orders.Customer", on_delete=models.PROTECT, related_name="conversations", verbose_name="고객"
    )
    created_at = models.DateTimeField("시작일시", auto_now_add=True)
    updated_at = models.DateTimeField("마지막 대화", auto_now=True)

    class Meta:
        verbose_name = "채팅 대화"
        verbose_name_plural = "채팅 대화"
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["customer", "-updated_at"], name="conversation_customer_recent")]

    def __str__(self) -> str:
        return f"{self.customer_id} {self.created_at:%Y-%m-%d %H:%M}"


class ChatMessage(models.Model):
    class Role(models.TextChoices):
        CUSTOMER = "customer", "고객"
        ASSISTANT = "assistant", "에이전트"
        # An operator's answer on the ticket this conversation handed over (appended by the reply's transaction).
        OPERATOR = "operator", "상담원"
        # A line built by code: the outcome of a request made in this conversation (승인, 반려, 환불완료, 처리실패).
        SYSTEM = "system", "안내"

    class Outcome(models.TextChoices):
        OK = "OK", "정상"
        BOUNDED = "BOUNDED", "도구 호출 한도 도달"
        MODEL_FAILED = "MODEL_FAILED", "모델 장애(티켓 접수)"
        # The model's reply claimed a refund or cancellation the records do not show; a reply built by
        # code from the tool results was sent instead.
        CLAIM_BLOCKED = "CLAIM_BLOCKED", "환불 약속 차단(코드 답변)"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField("역할", max_length=10, choices=Role.choices)
    content = models.TextField("내용")
    tool_results = models.JSONField("도구 결과", default=list, blank=True)
    outcome = models.CharField("결과", max_length=16, choices=Outcome.choices, blank=True, default="")
    model = models.CharField("사용 모델", max_length=100, blank=True, default="")
    ticket = models.ForeignKey(
        "tickets.Ticket", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name="관련 티켓"
    )
    # An operator line: the operator's display name when they set one (never the login), else "".
    author_name = models.CharField("작성자 이름", max_length=150, blank=True, default="")
    # What an appended line stands for ("ticket_message:<id>", "action:<id>:<status>"): at most one line each,
    # so a hook that runs twice for the same change adds nothing. "" for the agent's own turns.
    origin = models.CharField("출처", max_length=64, blank=True, default="")
    created_at = models.DateTimeField("일시", auto_now_add=True)

    class Meta:
        verbose_name = "채팅 메시지"
        verbose_name_plural = "채팅 메시지"
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["origin"], condition=~models.Q(origin=""), name="chatmessage_one_per_origin"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.content[:30]}"


class ToolCall(models.Model):
    """One tool call the agent made, for metrics (calls by tool, refusal reasons) and for the approval record
    page (the customer's refusals on the same order). No arguments stored except the order asked about."""

    message = models.ForeignKey(
        ChatMessage, on_delete=models.CASCADE, related_name="tool_calls", verbose_name="에이전트 응답"
    )
    tool = models.CharField("도구", max_length=64)
    # The order the agent asked about, as it asked (not a foreign key: an unknown or someone else's order id
    # is recorded too), as long as the tools' order_id argument. "" = the call was about no order; NULL = not
    # known (recorded before this column, where the backfill could not recover it).
    order_id = models.CharField("주문번호", max_length=32, null=True, blank=True, db_index=True)  # noqa: DJ001
    ok = models.BooleanField("성공")
    error = models.CharField("오류 구분", max_length=32, blank=True, default="")
    reason = models.CharField("거절 사유", max_length=300, blank=True, default="")
    action_number = models.CharField("처리번호", max_length=12, blank=True, default="")
    ticket_number = models.CharField("티켓번호", max_length=12, blank=True, default="")
    created_at = models.DateTimeField("일시", auto_now_add=True)

    class Meta:
        verbose_name = "도구 호출"
        verbose_name_plural = "도구 호출"
        ordering = ["id"]
        indexes = [models.Index(fields=["tool", "ok"], name="toolcall_tool_ok")]

    def __str__(self) -> str:
        # Operators read this (admin titles, breadcrumbs): no English tool name; the admin shows the tool's label.
        return f"도구 호출 #{self.pk} ({'성공' if self.ok else '거절'})"

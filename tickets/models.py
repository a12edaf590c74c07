from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from common.actors import Actor
from common.audit import AuditEvent, actor_key, event_type, subject_key
from common.clock import now
from common.numbering import format_number


class Tag(models.Model):
    """The operators' tag set. The AI may only recommend from it; only operators apply tags."""

    name = models.CharField("태그", max_length=40, unique=True)
    is_active = models.BooleanField("사용", default=True)

    class Meta:
        verbose_name = "태그"
        verbose_name_plural = "태그"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Ticket(models.Model):
    """A conversation with a person: chat escalations, inquiries opened through the API, phone notes."""

    class Category(models.TextChoices):
        DELIVERY = "DELIVERY", "배송"
        EXCHANGE_RETURN = "EXCHANGE_RETURN", "교환/반품"
        PAYMENT = "PAYMENT", "결제"
        ACCOUNT = "ACCOUNT", "계정"
        ERROR = "ERROR", "오류"
        COMPENSATION = "COMPENSATION", "보상"
        CALLBACK = "CALLBACK", "상담원연결"
        # A customer asks a person to look again at what the agent decided by itself (개인정보 보호법 제37조의2).
        AUTO_REVIEW = "AUTO_REVIEW", "자동처리 재검토"
        OTHER = "OTHER", "기타"

    class Status(models.TextChoices):
        OPEN = "OPEN", "접수"
        ANSWERED = "ANSWERED", "답변완료"
        CLOSED = "CLOSED", "종료"

    class Source(models.TextChoices):
        AGENT = "AGENT", "채팅 에이전트"
        CHAT_FAILURE = "CHAT_FAILURE", "채팅 장애 접수"
        API = "API", "고객 문의"
        STAFF = "STAFF", "상담원 대리 접수"

    class Priority(models.TextChoices):
        URGENT = "URGENT", "긴급"
        HIGH = "HIGH", "높음"
        NORMAL = "NORMAL", "보통"
        LOW = "LOW", "낮음"

    customer = models.ForeignKey(
        "orders.Customer", on_delete=models.PROTECT, related_name="tickets", verbose_name="고객"
    )
    category = models.CharField("분류", max_length=20, choices=Category.choices, default=Category.OTHER)
    subject = models.CharField("요약", max_length=200)
    status = models.CharField("상태", max_length=12, choices=Status.choices, default=Status.OPEN)
    source = models.CharField("접수 경로", max_length=16, choices=Source.choices, default=Source.API)
    order = models.ForeignKey(
        "orders.Order",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tickets",
        verbose_name="관련 주문",
    )
    tags = models.ManyToManyField(Tag, blank=True, related_name="tickets", verbose_name="태그")
    # The chat conversation that handed this ticket to a person (agent's create_ticket or a model failure).
    # A plain UUID, not a foreign key: tickets sit below chat. At most one open handoff per conversation.
    chat_conversation_id = models.UUIDField("채팅 대화", null=True, blank=True, editable=False)
    # The action record (처리번호, e.g. A00012) a review ticket asks a person to look at again. A plain number,
    # not a foreign key: tickets and actions are independent. At most one open review per record.
    review_of = models.CharField("재검토 대상 처리번호", max_length=12, blank=True, default="", editable=False)
    # When the customer last opened the thread: operator replies after it are unread (the chat page's badge).
    customer_seen_at = models.DateTimeField("고객 확인일시", null=True, blank=True, editable=False)
    # Who handles it now (a staff user); changed only by tickets.services.ticket_assign (an ASSIGNED event each).
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="assigned_tickets",
        verbose_name="담당자",
    )
    priority = models.CharField("우선순위", max_length=8, choices=Priority.choices, default=Priority.NORMAL)
    # The SLA clocks (tickets.policy), in business hours: set by the services on each change, never by hand.
    first_response_due_at = models.DateTimeField("첫 답변 기한", null=True, blank=True, editable=False)
    first_responded_at = models.DateTimeField("첫 답변일시", null=True, blank=True, editable=False)
    next_response_due_at = models.DateTimeField("다음 답변 기한", null=True, blank=True, editable=False)
    resolution_due_at = models.DateTimeField("해결 기한", null=True, blank=True, editable=False)
    # Business seconds the ticket has waited on the customer (답변완료): the resolution clock stops meanwhile.
    sla_paused_s = models.PositiveIntegerField("고객 대기로 멈춘 시간(초)", default=0, editable=False)
    # When it last became 답변완료 (waiting on the customer): the pause's start and the auto-close clock.
    answered_at = models.DateTimeField("답변완료 일시", null=True, blank=True, editable=False)
    closed_at = models.DateTimeField("종료일시", null=True, blank=True, editable=False)
    # The nearest due time of a running clock (none while waiting on the customer or closed): the list's order.
    sla_due_at = models.DateTimeField("가장 가까운 기한", null=True, blank=True, editable=False)
    # The desk's clock (common.clock.now: CS_NOW pins it in tests and demos), so SLA arithmetic and timestamps agree.
    created_at = models.DateTimeField("접수일시", default=now, editable=False)
    updated_at = models.DateTimeField("수정일시", auto_now=True)

    class Meta:
        verbose_name = "문의 티켓"
        verbose_name_plural = "문의 티켓"
        ordering = ["-created_at", "-id"]
        permissions = [
            ("reply_ticket", "고객 문의에 직접 답변할 수 있음"),
            ("assign_ticket", "문의를 다른 상담원에게 배정할 수 있음"),
        ]
        indexes = [
            models.Index(fields=["customer", "-created_at"], name="ticket_customer_recent"),
            models.Index(fields=["sla_due_at", "id"], name="ticket_sla_due"),
            models.Index(fields=["assignee", "status"], name="ticket_assignee_status"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["OPEN", "ANSWERED", "CLOSED"]), name="ticket_status_valid"),
            models.CheckConstraint(
                condition=Q(priority__in=["URGENT", "HIGH", "NORMAL", "LOW"]), name="ticket_priority_valid"
            ),
            models.UniqueConstraint(
                fields=["chat_conversation_id"],
                condition=Q(chat_conversation_id__isnull=False) & ~Q(status="CLOSED"),
                name="ticket_one_open_handoff_per_conversation",
            ),
            models.UniqueConstraint(
                fields=["review_of"], condition=~Q(review_of="") & ~Q(status="CLOSED"), name="ticket_one_open_review"
            ),
        ]

    @property
    def number(self) -> str:
        return format_number("T", self.pk)

    def __str__(self) -> str:
        return f"{self.number} {self.subject}"


class TicketMessage(models.Model):
    class Author(models.TextChoices):
        CUSTOMER = "CUSTOMER", "고객"
        OPERATOR = "OPERATOR", "상담원"
        SYSTEM = "SYSTEM", "시스템"

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="messages", verbose_name="티켓")
    author_type = models.CharField("작성자 구분", max_length=10, choices=Author.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name="작성자"
    )
    body = models.TextField("내용")
    created_at = models.DateTimeField("작성일시", default=now, editable=False)

    class Meta:
        verbose_name = "티켓 메시지"
        verbose_name_plural = "티켓 메시지"
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["ticket", "author_type", "-id"], name="ticketmsg_latest_by_author")]

    def __str__(self) -> str:
        return f"{self.get_author_type_display()}: {self.body[:30]}"


class TicketEvent(AuditEvent):
    """Audit trail of a ticket: one row per state change, written by `tickets.services` in the change's
    transaction. The payload holds ids and before/after codes only (never message bodies)."""

    class Type(models.TextChoices):
        CREATED = "CREATED", "접수"
        MESSAGE_ADDED = "MESSAGE_ADDED", "고객 메시지"
        REPLIED = "REPLIED", "상담원 답변"
        STATUS_CHANGED = "STATUS_CHANGED", "상태 변경"
        REOPENED = "REOPENED", "재접수(고객 추가 문의)"
        TAGS_CHANGED = "TAGS_CHANGED", "태그 변경"
        EDITED = "EDITED", "정보 수정"
        ASSIGNED = "ASSIGNED", "담당자 변경"
        PRIORITY_CHANGED = "PRIORITY_CHANGED", "우선순위 변경"
        AUTO_CLOSED = "AUTO_CLOSED", "자동 종료"
        RATED = "RATED", "고객 평가"

    subject_field = "ticket"
    ticket = subject_key(Ticket, "티켓")
    type = event_type(Type, max_length=16)

    class Meta(AuditEvent.Meta):
        verbose_name = "티켓 이력"
        verbose_name_plural = "티켓 이력"
        indexes = [models.Index(fields=["ticket", "id"], name="ticketevent_ticket")]

    # One builder per kind of row: the payload's keys are written down here, once. Each returns the unsaved row.
    @classmethod
    def created(
        cls,
        ticket: Ticket,
        *,
        actor: Actor,
        source: str,
        category: str,
        status: str,
        order_id: str | None,
        message_id: int,
        priority: str,
        rule: str,
    ) -> TicketEvent:
        payload = {
            "source": source,
            "category": category,
            "status": status,
            "order_id": order_id,
            "message_id": message_id,
        }
        if rule:  # a priority a rule raised is recorded with the rule; the default (보통) is not
            payload |= {"priority": priority, "rule": rule}
        return cls.build(ticket=ticket, type=cls.Type.CREATED, actor=actor, payload=payload)

    @classmethod
    def message_added(cls, ticket: Ticket, *, actor: Actor, message_id: int) -> TicketEvent:
        payload = {"message_id": message_id, "author_type": "CUSTOMER"}
        return cls.build(ticket=ticket, type=cls.Type.MESSAGE_ADDED, actor=actor, payload=payload)

    @classmethod
    def replied(
        cls, ticket: Ticket, *, actor: Actor, message_id: int, close: bool, assignee: str | None, by_assignee: bool
    ) -> TicketEvent:
        """Whether the assignee answered is recorded when the ticket has one."""
        payload: dict[str, object] = {"message_id": message_id, "close": close}
        if assignee is not None:
            payload |= {"assignee": assignee, "by_assignee": by_assignee}
        return cls.build(ticket=ticket, type=cls.Type.REPLIED, actor=actor, payload=payload)

    @classmethod
    def status_moved(
        cls, ticket: Ticket, *, actor: Actor, before: str, after: str, type: str = Type.STATUS_CHANGED, **rest: object
    ) -> TicketEvent:
        """STATUS_CHANGED, REOPENED or AUTO_CLOSED (`days`: how long the customer had not answered)."""
        return cls.build(ticket=ticket, type=type, actor=actor, payload=cls.change(before, after, **rest))

    @classmethod
    def tags_changed(cls, ticket: Ticket, *, actor: Actor, before: list[str], after: list[str]) -> TicketEvent:
        return cls.build(ticket=ticket, type=cls.Type.TAGS_CHANGED, actor=actor, payload=cls.change(before, after))

    @classmethod
    def edited(cls, ticket: Ticket, *, actor: Actor, category: tuple[str, str] | None, subject: bool) -> TicketEvent:
        """The category as before/after; the subject is the customer's words, so only that it changed."""
        payload: dict[str, object] = {}
        if category is not None:
            payload["category"] = cls.change(*category)
        if subject:
            payload["subject"] = {"changed": True}
        return cls.build(ticket=ticket, type=cls.Type.EDITED, actor=actor, payload=payload)

    @classmethod
    def assigned(
        cls, ticket: Ticket, *, actor: Actor, before: str | None, after: str | None, rule: str = ""
    ) -> TicketEvent:
        payload = cls.change(before, after, **({"rule": rule} if rule else {}))
        return cls.build(ticket=ticket, type=cls.Type.ASSIGNED, actor=actor, payload=payload)

    @classmethod
    def priority_changed(cls, ticket: Ticket, *, actor: Actor, before: str, after: str) -> TicketEvent:
        return cls.build(ticket=ticket, type=cls.Type.PRIORITY_CHANGED, actor=actor, payload=cls.change(before, after))

    @classmethod
    def rated(cls, ticket: Ticket, *, actor: Actor, score: int, low: bool) -> TicketEvent:
        return cls.build(ticket=ticket, type=cls.Type.RATED, actor=actor, payload={"score": score, "low": low})


class TicketRating(models.Model):
    """The customer's rating of an answered or closed ticket (CSAT, 1–5), once per ticket. A low score reopens
    nothing by itself: the metrics dashboard and the admin list it for the team."""

    ticket = models.OneToOneField(Ticket, on_delete=models.CASCADE, related_name="rating", verbose_name="티켓")
    score = models.PositiveSmallIntegerField("점수")
    comment = models.CharField("의견", max_length=500, blank=True, default="")
    # The ticket's category and status when rated: the dashboard groups by what the customer was rating.
    category = models.CharField("분류", max_length=20, choices=Ticket.Category.choices)
    created_at = models.DateTimeField("평가일시", default=now, editable=False)

    class Meta:
        verbose_name = "고객 평가"
        verbose_name_plural = "고객 평가"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["created_at"], name="ticketrating_created"),
            models.Index(fields=["score", "-created_at"], name="ticketrating_low"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(score__gte=1) & Q(score__lte=5), name="ticketrating_score_1_5"),
        ]

    def __str__(self) -> str:
        return f"{self.ticket_id} {self.score}점"


class OperatorStatus(models.Model):
    """A staff user's place on the desk: whether they take new tickets now (the toggle in the admin header) and
    when round-robin auto-assignment (CS_AUTO_ASSIGN) last gave them one. Changed only by tickets.services."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="operator_status",
        verbose_name="상담원",
    )
    available = models.BooleanField("상담 가능", default=False)
    last_assigned_at = models.DateTimeField("마지막 자동 배정", null=True, blank=True)
    updated_at = models.DateTimeField("변경일시", auto_now=True)

    class Meta:
        verbose_name = "상담원 상태"
        verbose_name_plural = "상담원 상태"
        indexes = [models.Index(fields=["available", "last_assigned_at"], name="operator_round_robin")]

    def __str__(self) -> str:
        return f"{self.user} ({'상담 가능' if self.available else '자리 비움'})"


class TicketPresence(models.Model):
    """Who has a ticket open right now, when no Redis is configured (embedded mode): one row per (ticket, user),
    refreshed by each heartbeat and ignored after `expires_at`. With REDIS_URL the same lives in Redis with a TTL
    (tickets.presence). Not an audit record: nothing about the ticket changes."""

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="presence", verbose_name="티켓")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name="상담원"
    )
    typing = models.BooleanField("작성 중", default=False)
    expires_at = models.DateTimeField("만료 시각")
    page = models.CharField("열린 페이지", max_length=32, blank=True, default="")

    class Meta:
        verbose_name = "티켓 보는 중"
        verbose_name_plural = "티켓 보는 중"
        constraints = [models.UniqueConstraint(fields=["ticket", "user"], name="ticket_presence_one_per_user")]
        indexes = [models.Index(fields=["ticket", "expires_at"], name="ticket_presence_live")]

    def __str__(self) -> str:
        return f"{self.ticket_id} {self.user_id}"


class DataSubjectRequest(models.Model):
    """A customer's request about their own data (개인정보 보호법 제35–37조): to see it, correct it, erase it or
    stop its processing. Answered within 10 days (시행령 제41조), counted on the desk's calendar; the export or
    erasure runs only once a person has verified who asked."""

    class Kind(models.TextChoices):
        ACCESS = "ACCESS", "열람"
        CORRECTION = "CORRECTION", "정정"
        ERASURE = "ERASURE", "삭제"
        SUSPENSION = "SUSPENSION", "처리정지"

    class Status(models.TextChoices):
        OPEN = "OPEN", "접수"
        DONE = "DONE", "처리완료"
        REJECTED = "REJECTED", "거절"

    customer = models.ForeignKey(
        "orders.Customer", on_delete=models.PROTECT, related_name="data_requests", verbose_name="고객"
    )
    kind = models.CharField("요청 종류", max_length=12, choices=Kind.choices)
    status = models.CharField("상태", max_length=10, choices=Status.choices, default=Status.OPEN)
    source = models.CharField("접수 경로", max_length=16, choices=Ticket.Source.choices, default=Ticket.Source.API)
    chat_conversation_id = models.UUIDField("채팅 대화", null=True, blank=True, editable=False)
    identity_verified = models.BooleanField("본인 확인", default=False)
    verified_by = actor_key("본인 확인자")
    due_at = models.DateTimeField("처리 기한", editable=False)
    done_at = models.DateTimeField("처리일시", null=True, blank=True, editable=False)
    # What the run produced: the export, or the erasure's account of what went and which rule kept what.
    result = models.JSONField("처리 결과", default=dict, blank=True, editable=False)
    created_at = models.DateTimeField("접수일시", default=now, editable=False)

    class Meta:
        verbose_name = "개인정보 열람·삭제 요청"
        verbose_name_plural = "개인정보 열람·삭제 요청"
        ordering = ["due_at", "id"]
        permissions = [("handle_data_request", "개인정보 열람·삭제 요청의 본인 확인과 처리를 할 수 있음")]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["ACCESS", "CORRECTION", "ERASURE", "SUSPENSION"]), name="dsr_kind_valid"
            ),
            models.CheckConstraint(condition=Q(status__in=["OPEN", "DONE", "REJECTED"]), name="dsr_status_valid"),
            # Nothing is handed over or erased for someone whose identity nobody checked.
            models.CheckConstraint(condition=~Q(status="DONE") | Q(identity_verified=True), name="dsr_done_verified"),
            # Asking twice opens one request: the open one of that kind is the answer.
            models.UniqueConstraint(
                fields=["customer", "kind"], condition=Q(status="OPEN"), name="dsr_one_open_per_kind"
            ),
        ]

    @property
    def number(self) -> str:
        return format_number("P", self.pk)

    def __str__(self) -> str:
        return f"{self.number} {self.get_kind_display()}"

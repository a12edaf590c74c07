from __future__ import annotations

from django.db import models
from django.db.models import Q

from common.actors import Actor
from common.audit import AuditEvent, decider_key, event_type, subject_key


class StageState(models.TextChoices):
    PENDING = "PENDING", "대기"
    DONE = "DONE", "완료"
    FAILED = "FAILED", "실패"
    SKIPPED = "SKIPPED", "해당 없음"


class Draft(models.Model):
    """A reply draft for an operator, built from one customer input (the source message).

    Never sent by itself: an operator applies it (unchanged or edited) or rejects it.
    """

    class Status(models.TextChoices):
        PREPARING = "PREPARING", "생성 중"
        GENERATED = "GENERATED", "생성됨"
        SUPERSEDED = "SUPERSEDED", "대체됨"
        APPLIED = "APPLIED", "적용됨"
        REJECTED = "REJECTED", "반려됨"
        FAILED = "FAILED", "생성 실패"

    class Applied(models.TextChoices):
        UNCHANGED = "UNCHANGED", "그대로 발송"
        EDITED = "EDITED", "수정 후 발송"

    # The stages with a `<stage>_state` column (each stage is declared in drafts.stages; one declared without a
    # column keeps its state and output in `stage_results`).
    STAGES = ("draft", "qa", "confidence", "tags", "diagnosis")
    CLOSED_STATUSES = (Status.SUPERSEDED, Status.APPLIED, Status.REJECTED)

    ticket = models.ForeignKey("tickets.Ticket", on_delete=models.CASCADE, related_name="drafts", verbose_name="티켓")
    source_message = models.ForeignKey(
        "tickets.TicketMessage", on_delete=models.CASCADE, related_name="drafts", verbose_name="기준 고객 입력"
    )
    status = models.CharField("상태", max_length=12, choices=Status.choices, default=Status.PREPARING)

    # The fast draft and the QA-corrected answer.
    body = models.TextField("초안(빠른 초안)", blank=True, default="")
    corrected_body = models.TextField("QA 보정 답변", blank=True, default="")
    citations = models.JSONField("출처", default=list, blank=True)
    dropped_citations = models.JSONField("버린 출처(검색되지 않음)", default=list, blank=True)
    draft_model = models.CharField("초안 모델", max_length=100, blank=True, default="")
    qa_model = models.CharField("QA 모델", max_length=100, blank=True, default="")
    qa_changes = models.JSONField("QA 수정 내용", default=list, blank=True)

    # Quality signals: never a total score, never an auto-send flag.
    confidence = models.JSONField("신뢰도(항목별)", default=dict, blank=True)
    hard_blockers = models.JSONField("차단 사유", default=list, blank=True)
    # Found by code (actions.claims), whatever the models said: [{code: "money_claim", field, start, end,
    # sentence, trigger}] on the fast draft ("body"), QA's answer ("corrected_body") and, when an operator
    # overrode the hold, the text sent ("final_body").
    claim_blockers = models.JSONField("환불 약속 차단", default=list, blank=True)
    recommended_tags = models.JSONField("추천 태그", default=list, blank=True)
    diagnosis = models.JSONField("운영자 전용 진단", default=dict, blank=True)
    context_report = models.JSONField("선조회 결과", default=dict, blank=True)

    draft_state = models.CharField("초안 단계", max_length=8, choices=StageState.choices, default=StageState.PENDING)
    qa_state = models.CharField("QA 단계", max_length=8, choices=StageState.choices, default=StageState.PENDING)
    confidence_state = models.CharField(
        "신뢰도 단계", max_length=8, choices=StageState.choices, default=StageState.PENDING
    )
    tags_state = models.CharField("태그 단계", max_length=8, choices=StageState.choices, default=StageState.PENDING)
    diagnosis_state = models.CharField(
        "진단 단계", max_length=8, choices=StageState.choices, default=StageState.PENDING
    )
    # {stage: {"state": PENDING|DONE|FAILED|SKIPPED, "output": {...}}} for declared stages without their own columns.
    stage_results = models.JSONField("추가 단계 결과", default=dict, blank=True)
    errors = models.JSONField("단계별 오류", default=dict, blank=True)
    # {stage: ms, "context": ms, "retrieval": ms}: the CPU each stage's work took in its own thread, up to the write
    # that stores it (the model's latency is waiting, not CPU), and the run's context prefetch and retrieval beside
    # them (drafts.pipeline._Clock). A stage that did not run has none; a later run replaces the figures it measures.
    stage_cpu_ms = models.JSONField("단계별 CPU(ms)", default=dict, blank=True)
    attempts = models.PositiveIntegerField("실행 횟수", default=0)
    attempted_at = models.DateTimeField("마지막 실행", null=True, blank=True)

    # Timings: input received → draft stored → QA done → confidence done.
    input_at = models.DateTimeField("입력 시각")
    draft_at = models.DateTimeField("초안 저장", null=True, blank=True)
    qa_at = models.DateTimeField("QA 완료", null=True, blank=True)
    confidence_at = models.DateTimeField("신뢰도 완료", null=True, blank=True)

    # The operator's decision.
    applied = models.CharField("적용 방식", max_length=10, choices=Applied.choices, blank=True, default="")
    edit_ratio = models.FloatField("편집 비율", null=True, blank=True)
    final_body = models.TextField("발송한 답변", blank=True, default="")
    decided_by = decider_key("결정자")
    decided_at = models.DateTimeField("결정 시각", null=True, blank=True)
    # Sent although held (a money claim, or QA/confidence unfinished or failed): who, when, why, and which holds.
    override_reason = models.CharField("예외 발송 사유", max_length=500, blank=True, default="")
    override_by = decider_key("예외 발송자")
    override_at = models.DateTimeField("예외 발송 시각", null=True, blank=True)
    override_holds = models.JSONField("무시한 보류 사유", default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "답변 초안"
        verbose_name_plural = "답변 초안"
        ordering = ["-id"]
        permissions = [("review", "초안을 적용·반려할 수 있음")]
        constraints = [
            # De-duplication: one draft per (ticket, source input); redelivered events find it.
            models.UniqueConstraint(fields=["ticket", "source_message"], name="one_draft_per_source_input"),
            # At most one live draft per ticket.
            models.UniqueConstraint(
                fields=["ticket"], condition=Q(status="GENERATED"), name="one_generated_per_ticket"
            ),
            models.CheckConstraint(
                condition=~Q(status="APPLIED") | (~Q(applied="") & Q(edit_ratio__isnull=False)),
                name="applied_draft_has_outcome",
            ),
            # An override is whole: a reason, a person and a time, on an applied draft.
            models.CheckConstraint(
                condition=Q(override_at__isnull=True, override_by__isnull=True, override_reason="")
                | (
                    Q(status="APPLIED")
                    & Q(override_at__isnull=False, override_by__isnull=False)
                    & ~Q(override_reason="")
                ),
                name="override_has_reason_actor_time",
            ),
        ]

    def __str__(self) -> str:
        return f"D{self.pk} {self.get_status_display()}"

    @property
    def answer(self) -> str:
        """What the operator starts from: the QA-corrected answer once there is one."""
        return self.corrected_body or self.body

    @property
    def stage_states(self) -> tuple[str, ...]:
        """The states of STAGES, in that order."""
        return tuple(getattr(self, f"{stage}_state") for stage in self.STAGES)

    def stage_state(self, stage: str) -> str:
        """Any declared stage's state: its column, or its entry in `stage_results` (PENDING until it runs)."""
        if stage in self.STAGES:
            return getattr(self, f"{stage}_state")
        return (self.stage_results.get(stage) or {}).get("state", StageState.PENDING)

    @property
    def _all_states(self) -> tuple[str, ...]:
        return (*self.stage_states, *((r or {}).get("state", "") for r in self.stage_results.values()))

    @property
    def is_closed(self) -> bool:
        """Nothing runs on it any more: replaced by a newer input, or decided by an operator."""
        return self.status in self.CLOSED_STATUSES

    @property
    def has_failure(self) -> bool:
        return self.status == self.Status.FAILED or StageState.FAILED in self._all_states

    @property
    def is_unfinished(self) -> bool:
        return self.status == self.Status.PREPARING or StageState.PENDING in self._all_states


class DraftEvent(AuditEvent):
    """Audit trail of a draft's status: one row per change, written in the change's transaction by the
    pipeline (actor: system), the sweep (system) or an operator's decision."""

    class Type(models.TextChoices):
        CREATED = "CREATED", "생성 시작"
        GENERATED = "GENERATED", "초안 생성"
        FAILED = "FAILED", "생성 실패"
        SUPERSEDED = "SUPERSEDED", "대체됨"
        APPLIED = "APPLIED", "적용(발송)"
        REJECTED = "REJECTED", "반려"
        OVERRIDDEN = "OVERRIDDEN", "보류 무시 발송"

    subject_field = "draft"
    subject_prefix = "D"
    draft = subject_key(Draft, "초안")
    type = event_type(Type, max_length=12)

    class Meta(AuditEvent.Meta):
        verbose_name = "초안 이력"
        verbose_name_plural = "초안 이력"
        indexes = [models.Index(fields=["draft", "id"], name="draftevent_draft")]

    # One builder per kind of row: the payload's keys are written down here, once. Each returns the unsaved row.
    @classmethod
    def created(cls, draft: Draft, *, actor: Actor) -> DraftEvent:
        """A run claimed a new draft for its ticket's customer input."""
        payload = {"after": draft.status, "ticket_id": draft.ticket_id, "message_id": draft.source_message_id}
        return cls.build(draft=draft, type=cls.Type.CREATED, actor=actor, payload=payload)

    @classmethod
    def generated(cls, draft: Draft, *, actor: Actor, before: str) -> DraftEvent:
        """A run made the draft live; `attempt`: which run of the draft it was."""
        payload = cls.change(before, Draft.Status.GENERATED, attempt=draft.attempts)
        return cls.build(draft=draft, type=cls.Type.GENERATED, actor=actor, payload=payload)

    @classmethod
    def failed(cls, draft: Draft, *, actor: Actor, before: str) -> DraftEvent:
        """A run could not make the draft; `errors`: each stage's error class, never its text."""
        payload = cls.change(before, Draft.Status.FAILED, attempt=draft.attempts, errors=draft.errors)
        return cls.build(draft=draft, type=cls.Type.FAILED, actor=actor, payload=payload)

    @classmethod
    def superseded(cls, draft_id: int, *, actor: Actor, before: str, reason: str) -> DraftEvent:
        """`reason`: newer_input (the customer wrote again) or newer_draft (another draft of the ticket went live)."""
        payload = cls.change(before, Draft.Status.SUPERSEDED, reason=reason)
        return cls.build(draft_id=draft_id, type=cls.Type.SUPERSEDED, actor=actor, payload=payload)

    @classmethod
    def applied(cls, draft: Draft, *, actor: Actor, tags: list[str]) -> DraftEvent:
        """The operator sent it: unchanged or edited, how much (`edit_ratio`) and the tags they chose."""
        payload = cls.change(
            Draft.Status.GENERATED,
            Draft.Status.APPLIED,
            applied=draft.applied,
            edit_ratio=round(draft.edit_ratio, 4),
            tags=tags,
        )
        return cls.build(draft=draft, type=cls.Type.APPLIED, actor=actor, payload=payload)

    @classmethod
    def overridden(cls, draft: Draft, *, actor: Actor, holds: list[str], claims: int) -> DraftEvent:
        """Sent although held: which holds, and how many money claims the sent text made."""
        payload = {"holds": list(holds), "claims": claims}
        return cls.build(draft=draft, type=cls.Type.OVERRIDDEN, actor=actor, payload=payload)

    @classmethod
    def rejected(
        cls, draft: Draft, *, actor: Actor, tags: list[str] | None = None, reason: str | None = None
    ) -> DraftEvent:
        """Rejected by the operator (with the tags they chose), or `reason` own_reply: they answered themselves."""
        payload = cls.change(Draft.Status.GENERATED, Draft.Status.REJECTED)
        if tags is not None:
            payload["tags"] = tags
        if reason is not None:
            payload["reason"] = reason
        return cls.build(draft=draft, type=cls.Type.REJECTED, actor=actor, payload=payload)


class TicketLease(models.Model):
    """Per-ticket lease for embedded mode (no Redis): a crashed holder blocks only until it expires."""

    ticket_id = models.BigIntegerField(primary_key=True)
    holder = models.CharField(max_length=64)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"lease ticket={self.ticket_id} until {self.expires_at:%H:%M:%S}"


class DeadLetter(models.Model):
    """A draft run that gave up (retries exhausted or an unexpected error): visible, and retryable with
    `regenerate_drafts --failed`, which clears it once the run completes. The sweep resolves those whose input
    a newer customer message superseded: only unresolved letters need a person."""

    class Resolution(models.TextChoices):
        COMPLETED = "COMPLETED", "재처리 완료"
        SUPERSEDED = "SUPERSEDED", "새 입력으로 대체됨"

    ticket = models.ForeignKey("tickets.Ticket", on_delete=models.CASCADE, related_name="+", verbose_name="티켓")
    source_message = models.ForeignKey(
        "tickets.TicketMessage", on_delete=models.CASCADE, related_name="+", verbose_name="기준 고객 입력"
    )
    error = models.CharField("오류", max_length=200)
    retries = models.PositiveIntegerField("재시도 횟수", default=0)
    created_at = models.DateTimeField("발생 시각", auto_now_add=True)
    resolved_at = models.DateTimeField("해결 시각", null=True, blank=True)
    resolution = models.CharField("해결 방식", max_length=12, choices=Resolution.choices, blank=True, default="")

    class Meta:
        verbose_name = "처리 실패(데드레터)"
        verbose_name_plural = "처리 실패(데드레터)"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"DL{self.pk} {self.error}"

from django.db import models

from llm.labels import purpose_label


class LLMCall(models.Model):
    """One row per model attempt (primary or fallback). Metadata only: message bodies are never stored,
    because prompts carry customer text and the table is read by operators."""

    class Outcome(models.TextChoices):
        OK = "OK", "성공"
        ERROR = "ERROR", "오류"
        INVALID = "INVALID", "잘못된 출력"

    purpose = models.CharField("용도", max_length=32)
    model = models.CharField("모델", max_length=100)
    is_fallback = models.BooleanField("대체 모델", default=False)
    outcome = models.CharField("결과", max_length=8, choices=Outcome.choices)
    error_class = models.CharField("오류 종류", max_length=64, blank=True)
    latency_ms = models.PositiveIntegerField("응답 시간(ms)")
    prompt_tokens = models.PositiveIntegerField("입력 토큰", null=True, blank=True)
    completion_tokens = models.PositiveIntegerField("출력 토큰", null=True, blank=True)
    created_at = models.DateTimeField("호출 일시", auto_now_add=True)

    class Meta:
        verbose_name = "모델 호출"
        verbose_name_plural = "모델 호출"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["purpose", "-created_at"], name="llmcall_purpose_recent")]

    def __str__(self) -> str:
        return f"{purpose_label(self.purpose)} {self.model} {self.get_outcome_display()}"

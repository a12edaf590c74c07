from django.conf import settings
from django.db import models


class DraftRating(models.Model):
    """An operator's 👍/👎 on a draft, with a reason, tied to the exact text and models that were rated.
    Feeds the drafts report and becomes a golden case through `export_eval_cases`."""

    class Verdict(models.TextChoices):
        UP = "UP", "👍 좋음"
        DOWN = "DOWN", "👎 나쁨"

    class Reason(models.TextChoices):
        CORRECT = "CORRECT", "정확하고 바로 쓸 수 있음"
        WRONG_FACT = "WRONG_FACT", "사실·정책 오류"
        MISSING = "MISSING", "필요한 내용 누락"
        WRONG_SOURCE = "WRONG_SOURCE", "출처가 맞지 않음"
        UNSAFE = "UNSAFE", "위험한 약속·개인정보"
        TONE = "TONE", "어투·형식"
        OTHER = "OTHER", "기타"

    draft = models.ForeignKey("drafts.Draft", on_delete=models.CASCADE, related_name="ratings", verbose_name="초안")
    verdict = models.CharField("평가", max_length=4, choices=Verdict.choices)
    reason = models.CharField("이유", max_length=16, choices=Reason.choices)
    note = models.CharField("메모", max_length=500, blank=True, default="")
    # What was rated, frozen: the draft text may be regenerated or edited later.
    answer = models.TextField("평가한 초안 내용")
    customer_input = models.TextField("기준 고객 입력")
    draft_model = models.CharField("초안 모델", max_length=100, blank=True, default="")
    qa_model = models.CharField("QA 모델", max_length=100, blank=True, default="")
    rated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="평가자"
    )
    created_at = models.DateTimeField("평가 시각", auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "초안 평가"
        verbose_name_plural = "초안 평가"
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["draft", "rated_by"], name="one_rating_per_draft_and_operator")]

    def __str__(self) -> str:
        return f"D{self.draft_id} {self.get_verdict_display()}"


class EvalRun(models.Model):
    """A finished `eval_agent` / `eval_drafts` run: its report, for the admin page and charts."""

    class Suite(models.TextChoices):
        AGENT = "AGENT", "에이전트"
        DRAFTS = "DRAFTS", "답변 초안"

    suite = models.CharField("평가 종류", max_length=8, choices=Suite.choices)
    model = models.CharField("모델", max_length=100)
    report = models.JSONField("보고서")
    created_at = models.DateTimeField("실행 시각", auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "평가 실행"
        verbose_name_plural = "평가 실행"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.get_suite_display()} {self.model} {self.created_at:%Y-%m-%d %H:%M}"

from django.db import models


class FaqEntry(models.Model):
    """A short public Q&A. The active set is small enough to go into the prompt whole."""

    question = models.CharField("질문", max_length=300, unique=True)
    answer = models.TextField("답변")
    category = models.CharField("분류", max_length=50, blank=True)
    is_active = models.BooleanField("사용", default=True)
    sort_order = models.IntegerField("정렬 순서", default=0)
    updated_at = models.DateTimeField("수정 시각", auto_now=True)

    class Meta:
        verbose_name = "자주 묻는 질문"
        verbose_name_plural = "자주 묻는 질문"
        ordering = ["sort_order", "id"]

    def __str__(self) -> str:
        return self.question


class KnowledgeDocument(models.Model):
    """A longer operator-managed document: chunked, searched and cited, never put into the prompt whole."""

    class Kind(models.TextChoices):
        POLICY = "POLICY", "정책"
        GUIDE = "GUIDE", "가이드"
        NOTICE = "NOTICE", "공지"

    doc_id = models.SlugField("문서 ID", max_length=80, unique=True)
    title = models.CharField("제목", max_length=200)
    kind = models.CharField("종류", max_length=16, choices=Kind.choices, default=Kind.GUIDE)
    body = models.TextField("본문")
    is_active = models.BooleanField("사용", default=True)
    updated_at = models.DateTimeField("수정 시각", auto_now=True)

    class Meta:
        verbose_name = "지식 문서"
        verbose_name_plural = "지식 문서"
        ordering = ["doc_id"]

    def __str__(self) -> str:
        return f"{self.doc_id} {self.title}"


class KnowledgeChunk(models.Model):
    """One searchable piece of a document. `tokens` are the Kiwi tokens computed when the index was built."""

    document = models.ForeignKey(
        KnowledgeDocument, on_delete=models.CASCADE, related_name="chunks", verbose_name="문서"
    )
    index = models.PositiveIntegerField("순번")
    text = models.TextField("내용")
    tokens = models.JSONField("토큰", default=list)
    built_at = models.DateTimeField("색인 시각")

    class Meta:
        verbose_name = "문서 조각"
        verbose_name_plural = "문서 조각"
        ordering = ["document_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["document", "index"], name="knowledge_chunk_index_unique_per_document"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.index}"

from django.db import models
from django.db.models import Q


class Integration(models.Model):
    """A connected shop. The API key is stored only as a SHA-256 hash; the signing secret must be usable to
    sign webhooks, so it is stored encrypted with a key derived from SECRET_KEY (integration/secrets.py)."""

    class Scope(models.TextChoices):
        CATALOG_WRITE = "catalog:write", "고객·상품·주문 업로드"
        EVENTS_READ = "events:read", "이벤트 조회"
        ACTIONS_REPORT = "actions:report", "환불·취소 처리 결과 보고"

    name = models.SlugField("이름", max_length=50, unique=True)
    api_key_prefix = models.CharField("API 키 앞자리", max_length=12, editable=False)
    api_key_hash = models.CharField("API 키 해시", max_length=64, unique=True, editable=False)
    signing_secret_encrypted = models.TextField("서명 비밀키(암호화)", editable=False)
    webhook_url = models.URLField("웹훅 URL", max_length=500, blank=True, default="")
    scopes = models.JSONField("권한", default=list, blank=True)
    allowed_origins = models.JSONField("허용 출처", default=list, blank=True)
    active = models.BooleanField("사용", default=True)
    created_at = models.DateTimeField("생성일시", auto_now_add=True)

    class Meta:
        verbose_name = "쇼핑몰 연동"
        verbose_name_plural = "쇼핑몰 연동"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class SyncRecord(models.Model):
    """Which integration owns an upserted object, and the last version applied (the idempotency guard)."""

    class Kind(models.TextChoices):
        CUSTOMER = "customer", "고객"
        PRODUCT = "product", "상품"
        ORDER = "order", "주문"

    integration = models.ForeignKey(Integration, on_delete=models.CASCADE, related_name="sync_records")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    external_id = models.CharField(max_length=40)
    version = models.BigIntegerField()
    data = models.JSONField(default=dict, blank=True)  # product: {"options": {option_id: ProductOption pk}}
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "동기화 기록"
        verbose_name_plural = "동기화 기록"
        constraints = [
            models.UniqueConstraint(fields=["kind", "external_id"], name="sync_record_unique_object"),
            models.CheckConstraint(condition=Q(kind__in=["customer", "product", "order"]), name="sync_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.external_id} v{self.version}"


class ShopEvent(models.Model):
    """One event routed to one integration. `event_id` is stable across retries and replays; the webhook
    delivery itself is the outbox row `webhook.deliver:<event_id>`."""

    integration = models.ForeignKey(Integration, on_delete=models.CASCADE, related_name="events")
    event_id = models.CharField("이벤트 ID", max_length=40, unique=True)
    type = models.CharField("종류", max_length=40)
    data = models.JSONField("내용", default=dict)
    created_at = models.DateTimeField("발생일시")

    class Meta:
        verbose_name = "쇼핑몰 이벤트"
        verbose_name_plural = "쇼핑몰 이벤트"
        ordering = ["id"]
        indexes = [models.Index(fields=["integration", "id"], name="shop_event_feed")]

    def __str__(self) -> str:
        return f"{self.event_id} {self.type}"


class ShopSessionUse(models.Model):
    """A shop-signed session already exchanged for a token: the same signature is refused afterwards."""

    integration = models.ForeignKey(Integration, on_delete=models.CASCADE, related_name="+")
    signature = models.CharField(max_length=64)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["integration", "signature"], name="shop_session_used_once"),
        ]

    def __str__(self) -> str:
        return f"{self.integration_id} {self.signature[:8]}"

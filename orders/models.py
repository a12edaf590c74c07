from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from common.actors import Actor
from common.audit import AuditEvent, event_type, subject_key

# The canonical public forms, ASCII only (URL converters and lookups check them before any query).
ORDER_ID_PATTERN = r"HR[0-9]{11,18}"
PRODUCT_ID_PATTERN = r"[A-Za-z0-9_-]{1,16}"


class Customer(models.Model):
    customer_id = models.CharField("고객 ID", max_length=16, primary_key=True)
    name = models.CharField("이름", max_length=50)
    phone = models.CharField("전화번호", max_length=20, blank=True)
    email = models.EmailField("이메일", blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name="로그인 계정",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="customer",
    )
    # The customer's own choice: e-mail notices of an answer (and the `notify` flag of the shop's event).
    email_notices = models.BooleanField("답변 알림 메일", default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "고객"
        verbose_name_plural = "고객"
        ordering = ["customer_id"]

    def __str__(self) -> str:
        return f"{self.customer_id} {self.name}"


class Product(models.Model):
    product_id = models.CharField("상품 ID", max_length=16, primary_key=True)
    name = models.CharField("상품명", max_length=100)
    price = models.DecimalField("판매가", max_digits=12, decimal_places=0)

    class Meta:
        verbose_name = "상품"
        verbose_name_plural = "상품"
        ordering = ["product_id"]

    def __str__(self) -> str:
        return self.name


class ProductOption(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="options", verbose_name="상품")
    label = models.CharField("옵션", max_length=50)
    stock = models.IntegerField("재고", default=0)

    class Meta:
        verbose_name = "상품 옵션"
        verbose_name_plural = "상품 옵션"
        ordering = ["product_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["product", "label"], name="option_label_unique_per_product"),
            models.CheckConstraint(condition=Q(stock__gte=0), name="option_stock_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.product.name} {self.label}"


class Order(models.Model):
    class Status(models.TextChoices):
        PAID = "PAID", "결제완료"
        PREPARING = "PREPARING", "배송준비"
        SHIPPING = "SHIPPING", "배송중"
        DELIVERED = "DELIVERED", "배송완료"
        CANCELLED = "CANCELLED", "취소완료"
        RETURNED = "RETURNED", "반품완료"

    order_id = models.CharField("주문번호", max_length=20, primary_key=True)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="orders", verbose_name="고객")
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="orders", verbose_name="상품")
    option = models.ForeignKey(ProductOption, on_delete=models.PROTECT, related_name="orders", verbose_name="옵션")
    quantity = models.PositiveIntegerField("수량", default=1)
    amount = models.DecimalField("결제금액", max_digits=12, decimal_places=0)
    status = models.CharField("주문상태", max_length=16, choices=Status.choices, default=Status.PAID)
    shipping_address = models.CharField("배송지", max_length=200)
    ordered_at = models.DateField("주문일")
    shipped_at = models.DateField("출고일", null=True, blank=True)
    delivered_at = models.DateField("배송완료일", null=True, blank=True)

    class Meta:
        verbose_name = "주문"
        verbose_name_plural = "주문"
        ordering = ["-ordered_at", "order_id"]
        indexes = [models.Index(fields=["customer", "-ordered_at"], name="order_customer_recent")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["PAID", "PREPARING", "SHIPPING", "DELIVERED", "CANCELLED", "RETURNED"]),
                name="order_status_valid",
            ),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="order_quantity_positive"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="order_amount_not_negative"),
            models.CheckConstraint(
                condition=~Q(status="DELIVERED") | Q(delivered_at__isnull=False),
                name="order_delivered_has_date",
            ),
        ]

    def __str__(self) -> str:
        return self.order_id


class OrderEvent(AuditEvent):
    """Audit trail of an order (Saleor's OrderEvent): one row per change of status, address or stock held
    for it, written by `orders.services` in the change's transaction. The payload holds codes, ids and
    quantities; an address change records that it happened, not the address (the action record keeps it)."""

    class Type(models.TextChoices):
        STATUS_CHANGED = "STATUS_CHANGED", "주문상태 변경"
        ADDRESS_CHANGED = "ADDRESS_CHANGED", "배송지 변경"
        STOCK_RESERVED = "STOCK_RESERVED", "재고 예약"
        STOCK_RELEASED = "STOCK_RELEASED", "재고 복원"
        SYNCED = "SYNCED", "쇼핑몰 반영"

    subject_field = "order"
    order = subject_key(Order, "주문")
    type = event_type(Type, max_length=16)

    class Meta(AuditEvent.Meta):
        verbose_name = "주문 이력"
        verbose_name_plural = "주문 이력"
        indexes = [models.Index(fields=["order", "id"], name="orderevent_order")]

    # One builder per kind of row: the payload's keys are written down here, once. Each returns the unsaved row.
    @classmethod
    def status_changed(cls, order: Order, *, actor: Actor, before: str, after: str, reference: str) -> OrderEvent:
        return cls.build(
            order=order,
            type=cls.Type.STATUS_CHANGED,
            actor=actor,
            payload=cls.change(before, after, reference=reference),
        )

    @classmethod
    def address_changed(cls, order: Order, *, actor: Actor, reference: str) -> OrderEvent:
        """That the address changed, not the address (the action record keeps it)."""
        return cls.build(order=order, type=cls.Type.ADDRESS_CHANGED, actor=actor, payload={"reference": reference})

    @classmethod
    def stock_reserved(cls, order: Order, *, actor: Actor, option_id: int, quantity: int) -> OrderEvent:
        payload = {"option_id": option_id, "quantity": quantity}
        return cls.build(order=order, type=cls.Type.STOCK_RESERVED, actor=actor, payload=payload)

    @classmethod
    def stock_released(cls, order: Order, *, actor: Actor, option_id: int, quantity: int, reference: str) -> OrderEvent:
        payload = {"option_id": option_id, "quantity": quantity, "reference": reference}
        return cls.build(order=order, type=cls.Type.STOCK_RELEASED, actor=actor, payload=payload)

    @classmethod
    def synced(cls, order_id: str, *, actor: Actor, before: str, after: str, version: int) -> OrderEvent:
        """The shop's own word on its order: status `before` ("" when new) → `after` at its `version`."""
        return cls.build(
            order_id=order_id, type=cls.Type.SYNCED, actor=actor, payload=cls.change(before, after, version=version)
        )

"""The shapes the shop sends: one serializer per object, used by the API and by `import_shop` alike, so both
validate a whole object before anything is stored."""

from __future__ import annotations

import re

from rest_framework import serializers

from orders.models import ORDER_ID_PATTERN, PRODUCT_ID_PATTERN, Order

CUSTOMER_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,16}")
PRODUCT_ID_RE = re.compile(PRODUCT_ID_PATTERN)
ORDER_ID_RE = re.compile(ORDER_ID_PATTERN)


def id_valid(kind: str, value: str) -> bool:
    pattern = {"customer": CUSTOMER_ID_RE, "product": PRODUCT_ID_RE, "order": ORDER_ID_RE}[kind]
    return bool(pattern.fullmatch(value or ""))


class CustomerIn(serializers.Serializer):
    name = serializers.CharField(max_length=50)
    phone = serializers.CharField(max_length=20, required=False, allow_blank=True, default="")
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    default_address = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    version = serializers.IntegerField(min_value=0)


class OptionIn(serializers.Serializer):
    option_id = serializers.RegexField(r"^[A-Za-z0-9_-]{1,16}$")
    name = serializers.CharField(max_length=50)
    stock = serializers.IntegerField(min_value=0)


class ProductIn(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    price = serializers.DecimalField(max_digits=12, decimal_places=0, min_value=0)
    options = OptionIn(many=True, allow_empty=False)
    version = serializers.IntegerField(min_value=0)

    def validate_options(self, value):
        ids = [o["option_id"] for o in value]
        names = [o["name"] for o in value]
        if len(set(ids)) != len(ids) or len(set(names)) != len(names):
            raise serializers.ValidationError("option_id와 name은 상품 안에서 겹칠 수 없습니다.")
        return value


class ItemIn(serializers.Serializer):
    product_id = serializers.RegexField(rf"^{PRODUCT_ID_PATTERN}$")
    option_id = serializers.RegexField(r"^[A-Za-z0-9_-]{1,16}$")
    quantity = serializers.IntegerField(min_value=1)
    unit_price = serializers.DecimalField(max_digits=12, decimal_places=0, min_value=0)


class OrderIn(serializers.Serializer):
    customer_id = serializers.RegexField(r"^[A-Za-z0-9_-]{1,16}$")
    status = serializers.ChoiceField(choices=Order.Status.choices)
    ordered_at = serializers.DateField()
    shipped_at = serializers.DateField(required=False, allow_null=True, default=None)
    delivered_at = serializers.DateField(required=False, allow_null=True, default=None)
    shipping_address = serializers.CharField(max_length=200)
    # The desk's order holds one line (one product option); a multi-line order is refused, not cut.
    items = ItemIn(many=True, allow_empty=False, max_length=1)
    amount = serializers.DecimalField(max_digits=12, decimal_places=0, min_value=0)
    version = serializers.IntegerField(min_value=0)

    def validate(self, attrs):
        if attrs["status"] == Order.Status.DELIVERED and not attrs.get("delivered_at"):
            raise serializers.ValidationError({"delivered_at": "배송완료 주문에는 배송완료일이 필요합니다."})
        return attrs


class UpsertResult(serializers.Serializer):
    applied = serializers.BooleanField()
    reason = serializers.CharField(required=False, help_text="stale (older version) · same_version")
    version = serializers.IntegerField()


SCHEMAS = {"customer": CustomerIn, "product": ProductIn, "order": OrderIn}

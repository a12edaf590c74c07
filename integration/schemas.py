"""The shapes the shop sends: one serializer per object, used by the API and by `import_shop` alike, so both
validate a whole object before anything is stored."""

from __future__ import annotations

import re

from rest_framework import serializers

from common.fields import AmountField, ShopDateField, StrictCharField, StrictIntegerField, StrictRegexField
from orders.models import ORDER_ID_PATTERN, PRODUCT_ID_PATTERN, Order

INT_MAX = 2**31 - 1  # an IntegerField column (stock, quantity)
BIGINT_MAX = 2**63 - 1  # SyncRecord.version

CUSTOMER_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,16}")
PRODUCT_ID_RE = re.compile(PRODUCT_ID_PATTERN)
ORDER_ID_RE = re.compile(ORDER_ID_PATTERN)


def id_valid(kind: str, value: str) -> bool:
    pattern = {"customer": CUSTOMER_ID_RE, "product": PRODUCT_ID_RE, "order": ORDER_ID_RE}[kind]
    return bool(pattern.fullmatch(value or ""))


class CustomerIn(serializers.Serializer):
    name = StrictCharField(max_length=50)
    phone = StrictCharField(max_length=20, required=False, allow_blank=True, default="")
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    default_address = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    version = StrictIntegerField(min_value=0, max_value=BIGINT_MAX)


class OptionIn(serializers.Serializer):
    option_id = StrictRegexField(r"^[A-Za-z0-9_-]{1,16}$")
    name = StrictCharField(max_length=50)
    stock = StrictIntegerField(min_value=0, max_value=INT_MAX)


class ProductIn(serializers.Serializer):
    name = StrictCharField(max_length=100)
    price = AmountField()
    options = serializers.ListField(
        child=OptionIn(),
        min_length=1,
        max_length=100,
        help_text="option_id와 name은 상품 안에서 각각 하나뿐 (겹치면 400)",
    )
    version = StrictIntegerField(min_value=0, max_value=BIGINT_MAX)

    def validate_options(self, value):
        ids = [o["option_id"] for o in value]
        names = [o["name"] for o in value]
        if len(set(ids)) != len(ids) or len(set(names)) != len(names):
            raise serializers.ValidationError("option_id와 name은 상품 안에서 겹칠 수 없습니다.")
        return value


class ItemIn(serializers.Serializer):
    product_id = StrictRegexField(rf"^{PRODUCT_ID_PATTERN}$")
    option_id = StrictRegexField(r"^[A-Za-z0-9_-]{1,16}$")
    quantity = StrictIntegerField(min_value=1, max_value=INT_MAX)
    unit_price = AmountField()


TIME_FIELDS = ("ordered_at", "shipped_at", "delivered_at")


class OrderIn(serializers.Serializer):
    customer_id = StrictRegexField(r"^[A-Za-z0-9_-]{1,16}$")
    status = serializers.ChoiceField(choices=Order.Status.choices)
    ordered_at = ShopDateField()
    shipped_at = ShopDateField(required=False, allow_null=True, default=None)
    delivered_at = ShopDateField(
        required=False, allow_null=True, default=None, help_text="status가 DELIVERED이면 필수 (없으면 400)"
    )
    shipping_address = StrictCharField(max_length=200)
    # The desk's order holds one line (one product option); a multi-line order is refused, not cut.
    items = serializers.ListField(child=ItemIn(), min_length=1, max_length=1)
    amount = AmountField()
    version = StrictIntegerField(min_value=0, max_value=BIGINT_MAX)

    def validate(self, attrs):
        if attrs["status"] == Order.Status.DELIVERED and not attrs.get("delivered_at"):
            raise serializers.ValidationError({"delivered_at": "배송완료 주문에는 배송완료일이 필요합니다."})
        # The order keeps the Seoul day; the instants the shop sent are kept as sent (the sync record).
        attrs["exact_times"] = {}
        for name in TIME_FIELDS:
            moment = attrs.get(name)
            if moment is not None:
                attrs[name] = moment.date
                if moment.exact:
                    attrs["exact_times"][name] = moment.exact
        return attrs


class UpsertResult(serializers.Serializer):
    applied = serializers.BooleanField()
    reason = serializers.CharField(required=False, help_text="stale (older version) · same_version")
    version = serializers.IntegerField()


SCHEMAS = {"customer": CustomerIn, "product": ProductIn, "order": OrderIn}

"""Input fields that take what the OpenAPI document says and nothing else."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from common.clock import SEOUL

# What "not blank" means here, written so that Python's `re` and the ECMA regex of JSON Schema read it alike:
# some character that Python's str.strip() keeps (its whitespace is ECMA's \s without U+FEFF, plus U+001C–1F
# and U+0085), and no NUL anywhere (DRF refuses NUL); linear in the length. The OpenAPI document carries it
# as `pattern`.
NOT_BLANK = r"^(?=[^\u0000]*$)[\s\S]*?(?:[^\s\u001c-\u001f\u0085\u0000]|\ufeff)"
NO_NUL = r"^[^\u0000]*$"


class StrictCharField(serializers.CharField):
    """A string, as documented. DRF's CharField also takes a number or a boolean and stores its str()
    (`{"body": 0}` became the message "0"), and measures `max_length` after trimming (Python's strip() also
    removes control characters such as U+001F), so a string longer than the documented maxLength could pass;
    this one answers 400 to both."""

    default_error_messages = {"invalid": "문자열이어야 합니다."}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        pattern = NO_NUL if self.allow_blank else NOT_BLANK
        self.validators.append(RegexValidator(pattern, message="내용을 입력해 주세요.", code="blank"))

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false, as documented (DRF's also takes "yes", 1, "on" …)."""

    default_error_messages = {"invalid": "true 또는 false여야 합니다."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, as documented (DRF's also takes "12", "12.0", 12.0 and true). A number written with a
    fraction or an exponent (`2.0`, `2e0`) is a float to Python's JSON parser and is refused like `2.5`: the
    document says integer, and a float has already lost digits past 2**53. Give `max_value`: the column's range,
    so that a number the database cannot hold is a 400, not a 500."""

    default_error_messages = {"invalid": "정수여야 합니다(소수점 없이, 예: 2)."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictDecimalField(serializers.DecimalField):
    """An amount as a string of digits ("59000"), as documented: at least one digit, no sign when it cannot be
    negative (DRF's own schema pattern also allowed "" and "-5", which it then refused)."""

    default_error_messages = {"invalid": '숫자 문자열이어야 합니다(예: "59000").'}

    @property
    def pattern(self) -> str:
        sign = "" if self.min_value is not None and self.min_value >= 0 else "-?"
        whole = self.max_digits - (self.decimal_places or 0)
        fraction = rf"(?:\.\d{{1,{self.decimal_places}}})?" if self.decimal_places else ""
        return rf"^{sign}\d{{1,{whole}}}{fraction}$"

    def to_internal_value(self, data):
        if not isinstance(data, str) or not re.fullmatch(self.pattern, data):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictDecimalFieldSchema(OpenApiSerializerFieldExtension):
    """The OpenAPI document states StrictDecimalField's own pattern (drf-spectacular's DecimalField pattern
    lets "" and a sign through)."""

    target_class = StrictDecimalField

    def map_serializer_field(self, auto_schema, direction):
        return {"type": "string", "format": "decimal", "pattern": self.target.pattern}


class StrictRegexField(serializers.RegexField):
    """A string matching `regex` as sent (DRF's takes numbers and trims before matching, so 0 or " A1" passed
    a pattern the document states for the untrimmed string)."""

    default_error_messages = {"invalid": "형식이 올바르지 않습니다."}

    def __init__(self, regex, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(regex, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class AmountField(serializers.DecimalField):
    """An amount of won as shop platforms send it: a JSON integer (15000: Naver's commerce API) or a string of
    digits with nothing but zeros after the point ("15000", "15000.00": Cafe24's decimal strings). A fraction
    of a won, a sign, a JSON float (15000.0 has already passed through binary) or a boolean is a 400 that says
    which. The value is a whole-won Decimal."""

    default_error_messages = {
        "invalid": '금액은 정수(15000) 또는 소수점 아래가 0인 숫자 문자열("15000", "15000.00")이어야 합니다.',
        "fraction": "원 단위 아래 금액은 받을 수 없습니다(소수점 아래는 0이어야 합니다).",
        "negative": "금액은 0 이상이어야 합니다.",
        "float": '금액을 소수(15000.0)로 보내지 말고 정수(15000)나 문자열("15000.00")로 보내 주세요.',
    }
    DIGITS = 12
    PATTERN = rf"^\d{{1,{DIGITS}}}(?:\.\d+)?$"

    def __init__(self, **kwargs):
        kwargs.setdefault("max_digits", self.DIGITS)
        kwargs.setdefault("decimal_places", 0)
        kwargs.setdefault("min_value", 0)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, float):
            self.fail("float")
        if isinstance(data, int):
            if data < 0:
                self.fail("negative")
            text = str(data)
        elif isinstance(data, str):
            if data.startswith("-") and re.fullmatch(r"-\d+(?:\.\d+)?", data):
                self.fail("negative")
            if not re.fullmatch(self.PATTERN, data):
                self.fail("invalid")
            text, _, fraction = data.partition(".")
            if fraction.strip("0"):
                self.fail("fraction")
        else:
            self.fail("invalid")
        return super().to_internal_value(text)


class AmountFieldSchema(OpenApiSerializerFieldExtension):
    """One statement of the amount's forms for every API that takes one (and the webhooks that send them)."""

    target_class = AmountField

    def map_serializer_field(self, auto_schema, direction):
        return {
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": 10**AmountField.DIGITS - 1},
                {"type": "string", "pattern": rf"^\d{{1,{AmountField.DIGITS}}}(?:\.0+)?$"},
            ],
            "description": '원 단위 금액: 정수 15000 또는 문자열 "15000" / "15000.00" (소수점 아래는 0만).',
            "example": 15000,
        }


@dataclass(frozen=True)
class ShopMoment:
    """A day as the shop's calendar counts it (Asia/Seoul), and the instant as the shop sent it, if it sent one."""

    date: date
    exact: str | None = None


_RFC3339 = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$")


class ShopDateField(serializers.Field):
    """A date as shops and their exports send it: "2026-07-22", or an RFC 3339 timestamp with its offset
    ("2026-07-22T10:00:00+09:00", "2026-07-22T01:00:00.000Z"; milliseconds allowed). The day is taken in
    Asia/Seoul — the day the 7/30-day windows count from — so 2026-07-20T15:30:00Z is 21 July. A timestamp
    without an offset names no instant and is refused."""

    default_error_messages = {
        "invalid": '날짜는 "2026-07-22" 또는 시간대가 붙은 RFC 3339 시각("2026-07-22T10:00:00+09:00")이어야 합니다.',
        "no_offset": '시각에는 시간대가 있어야 합니다(예: "+09:00" 또는 "Z").',
    }

    def to_internal_value(self, data) -> ShopMoment:
        if not isinstance(data, str):
            self.fail("invalid")
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", data):
            try:
                return ShopMoment(date.fromisoformat(data))
            except ValueError:
                self.fail("invalid")
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?", data):
            self.fail("no_offset")
        match = _RFC3339.fullmatch(data)
        if match is None:
            self.fail("invalid")
        day, hour, minute, second, fraction, offset = match.groups()
        micro = (fraction or ".0")[1:7].ljust(6, "0")
        iso = f"{day}T{hour}:{minute}:{second}.{micro}{'+00:00' if offset in 'Zz' else offset}"
        try:
            moment = datetime.fromisoformat(iso)
        except ValueError:
            self.fail("invalid")
        return ShopMoment(moment.astimezone(SEOUL).date(), data)

    def to_representation(self, value):
        return value.isoformat() if hasattr(value, "isoformat") else str(value)


class ShopDateFieldSchema(OpenApiSerializerFieldExtension):
    target_class = ShopDateField

    def map_serializer_field(self, auto_schema, direction):
        return {
            "oneOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}],
            "description": "날짜(2026-07-22) 또는 시간대가 붙은 RFC 3339 시각(2026-07-22T10:00:00.000+09:00). "
            "주문의 날짜는 한국 시간(Asia/Seoul) 기준 날짜로 저장되고, 보낸 시각은 그대로 보관됩니다.",
            "example": "2026-07-22T10:00:00+09:00",
        }

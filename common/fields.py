"""Input fields that take what the OpenAPI document says and nothing else."""

from __future__ import annotations

import re

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

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

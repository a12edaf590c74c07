"""The API's JSON parser: DRF's, made safe for hostile bodies.

DRF's parser catches only ValueError, so JSON nested deep enough to exhaust the stack (`[[[[…]]]]`) raised
RecursionError and answered 500. DRF also reads the request stream directly, bypassing Django's
DATA_UPLOAD_MAX_MEMORY_SIZE; this parser reads at most that many bytes.
"""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework import exceptions, parsers

# Far deeper than any body this API accepts (its deepest input is a list of strings), far shallower than
# what would reach the interpreter's recursion limit in later code.
MAX_JSON_DEPTH = 32


class PayloadTooLarge(exceptions.APIException):
    status_code = 413
    default_detail = "요청 본문이 너무 큽니다."
    default_code = "payload_too_large"


def json_depth_exceeds(value: object, limit: int) -> bool:
    """Iterative, so the check itself cannot overflow the stack."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge()
        encoding = parsers.get_encoding(parser_context or {})
        try:
            data = json.loads(raw.decode(encoding), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise exceptions.ParseError("요청 본문이 올바른 JSON이 아닙니다.", code="parse_error") from exc
        except RecursionError as exc:
            raise exceptions.ParseError("JSON이 너무 깊게 중첩되어 있습니다.", code="parse_error") from exc
        if json_depth_exceeds(data, MAX_JSON_DEPTH):
            raise exceptions.ParseError("JSON이 너무 깊게 중첩되어 있습니다.", code="parse_error")
        return data


def _reject_constant(name: str) -> None:
    # NaN and Infinity are not JSON; DRF's strict mode rejects them too.
    raise ValueError(f"invalid constant {name}")

"""drf-spectacular postprocessing: every /api/ operation documents the error statuses it can answer, all
with the one error body (common.apis.error_body). One hook rather than per-view decorators, so a new
endpoint is documented the same way without anyone remembering to."""

from __future__ import annotations

from common.apis import STATUS_ERRORS

# What any operation can answer besides its own success: bad input (400: validation with `errors`, parse
# errors), missing or invalid credentials (401 — also on open endpoints when a bad token is sent), not
# allowed (403), unknown id (404), a state that forbids it (409), body too large (413), wrong content type
# (415), throttles and the model-call budget (429, with Retry-After), a crash (500) and an outage (503).
ERROR_STATUSES = (400, 401, 403, 404, 409, 413, 415, 429, 500, 503)

ERROR_SCHEMA = {
    "type": "object",
    "description": "모든 API 오류의 형식",
    "properties": {
        "code": {"type": "string", "description": "안정적인 영문 오류 코드 (invalid, not_found, rate_limited …)"},
        "detail": {"type": "string", "description": "사람이 읽는 한국어 설명"},
        "errors": {
            "type": "object",
            "additionalProperties": True,
            "description": "400 code=invalid 일 때만: 항목별 오류 메시지",
        },
    },
    "required": ["code", "detail"],
}
RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer"}, "description": "다시 시도할 수 있을 때까지의 초"}}


def add_error_responses(result, generator, request, public):
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status in ERROR_STATUSES:
                response = {
                    "description": STATUS_ERRORS[status][1],
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }
                if status in (429, 503):
                    response["headers"] = RETRY_AFTER
                documented = operation["responses"].setdefault(str(status), response)
                if status in (429, 503):  # a view's own 429 (e.g. the login lockout) still says when to retry
                    documented.setdefault("headers", {}).update(RETRY_AFTER)
    return result

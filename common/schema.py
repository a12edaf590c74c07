"""Two OpenAPI documents: the public one (customer API) and the staff one, served only to staff."""

from __future__ import annotations

STAFF_PREFIX = "/api/ops/"


def exclude_staff_endpoints(endpoints: list, **_kwargs) -> list:
    """drf-spectacular preprocessing hook of the public schema: `/api/ops/` is documented only to staff."""
    return [endpoint for endpoint in endpoints if not endpoint[0].startswith(STAFF_PREFIX)]


# The staff schema (served at /api/ops/schema/) lists everything; the public one leaves out /api/ops/.
STAFF_SCHEMA_SETTINGS = {
    "PREPROCESSING_HOOKS": [],
    "TITLE": "CS Desk API (운영자용)",
    "DESCRIPTION": "고객 API와 운영자 전용 `/api/ops/` API. 운영자(is_staff) 로그인이 있어야 볼 수 있습니다.",
}

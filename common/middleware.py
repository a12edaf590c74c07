"""Errors under /api/ that no DRF view shaped: the resolver's 404, oversize bodies, a crash in a middleware
or outside a view (Django's HTML pages, technical or not). They become the same JSON `{code, detail}`.
Pages outside /api/ keep Django's HTML."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from common.apis import error_body

API_PREFIX = "/api/"
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == "application/json"


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _json_error(status_code: int) -> JsonResponse:
    return JsonResponse(error_body(status_code), status=status_code, json_dumps_params={"ensure_ascii": False})


class ApiErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith(API_PREFIX):
            return self.get_response(request)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and _declared_length(request) > limit:
            return _json_error(413)
        response = self.get_response(request)
        if response.status_code >= 400 and not _is_json(response):
            error = _json_error(response.status_code)
            for name in KEPT_HEADERS:
                if response.has_header(name):
                    error[name] = response[name]
            return error
        return response

"""The change endpoints that open pages ask, with If-None-Match, whether what they show has moved
(common.live). One question per page every few seconds, answered 304 with no body while nothing changed.

- `GET /admin/live/?topics=tickets,actions` (staff, the admin's session): the ticket list, the approval queue and
  the admin index's counts. The same permissions as the lists they refresh; 401/403/400 as JSON.
- `GET /api/live/` (a customer's token): the customer's own tickets and requests, for their open pages.

Conditional polling, not a held connection: production runs gunicorn sync workers, where an open stream would
hold a whole worker per open page, and the embedded default has no Redis to fan events out
(docs/BENCHMARKS.md, "Lists that update themselves").
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from common.apis import CustomerThrottle, IsCustomer, error_body
from common.live import (
    UnknownTopic,
    live_counts,
    live_customer_cursor,
    live_staff_allowed,
    live_staff_cursor,
    live_topics,
)


def _not_modified(request: HttpRequest, etag: str) -> bool:
    return etag in parse_etags(request.headers.get("If-None-Match", ""))


def _private(response: HttpResponse, etag: str, vary: str) -> HttpResponse:
    response["ETag"] = etag
    # Each user's token differs (permissions, own rows): never stored by a shared cache; always revalidated.
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, [vary])
    return response


def live_staff_changes_view(request: HttpRequest) -> HttpResponse:
    """200 {cursor, counts} with an ETag, or 304 when If-None-Match still holds it."""
    if request.method != "GET":
        response = JsonResponse(error_body(405), status=405)
        response["Allow"] = "GET"
        return response
    if not request.user.is_authenticated:
        return JsonResponse(error_body(401), status=401)
    try:
        topics = live_topics(request.GET.get("topics", ""))
    except UnknownTopic:
        return JsonResponse(error_body(400, "unknown_topic", "알 수 없는 목록입니다."), status=400)
    if not live_staff_allowed(request.user, topics):
        return JsonResponse(error_body(403, "permission_denied", "이 목록을 볼 권한이 없습니다."), status=403)
    cursor = live_staff_cursor(user=request.user, topics=topics)
    etag = f'"{cursor}"'
    if _not_modified(request, etag):
        return _private(HttpResponseNotModified(), etag, "Cookie")
    return _private(JsonResponse({"cursor": cursor, "counts": live_counts(topics=topics)}), etag, "Cookie")


class LiveChangesApi(APIView):
    """A customer's own change cursor: it moves when one of their tickets or requests changes, never for
    anyone else's."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema(
        summary="내 문의·요청 변경 확인",
        description=(
            "열어 둔 화면이 몇 초마다 묻는다: `If-None-Match`에 마지막 `ETag`를 보내면 "
            "바뀐 것이 없을 때 304(본문 없음), 내 티켓이나 요청이 바뀌었으면 200과 새 `cursor`. "
            "다른 고객의 변경으로는 바뀌지 않는다."
        ),
        responses={
            200: inline_serializer("LiveCursor", {"cursor": serializers.CharField()}),
            304: OpenApiResponse(description="바뀐 것 없음(If-None-Match와 같은 ETag)"),
        },
    )
    def get(self, request):
        cursor = live_customer_cursor(customer_id=request.customer.pk)
        etag = f'"{cursor}"'
        if _not_modified(request, etag):
            return _private(Response(status=304), etag, "Authorization")
        return _private(Response({"cursor": cursor}), etag, "Authorization")

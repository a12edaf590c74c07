"""The change endpoints that open pages ask, with If-None-Match, whether what they show has moved
(common.live). One question per page every few seconds, answered 304 with no body while nothing changed.

- `GET /admin/live/?topics=tickets,actions` (staff, the admin's session): the ticket list, the approval queue and
  the admin index's counts. The same permissions as the lists they refresh; 401/403/400 as JSON.
- `GET /api/live/` (a customer's token): the customer's own tickets and requests, for their open pages.

Each server process remembers a session's permission check for `CS_LIVE_GRANT_S` (10 s) and a computed cursor for
`CS_LIVE_CURSOR_CACHE_S` (0.5 s), so most 304s run no query: logging out or losing the permission takes effect
within those 10 s, a change is seen at most half a second later.

Conditional polling, not a held connection: production runs gunicorn sync workers, where an open stream would
hold a whole worker per open page, and the embedded default has no Redis to fan events out
(docs/BENCHMARKS.md, "Lists that update themselves").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.crypto import salted_hmac
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
    live_staff_view,
    live_topics,
    live_view_cursor,
)
from tickets.selectors import customer_unread_count


class _Memo:
    """A small map with expiry, private to one server process (each gunicorn worker has its own). Measured: with
    200 open lists every answer costs the session, the user, two permission reads and the markers — six queries
    and most of a core between them (docs/BENCHMARKS.md); with these, a repeated 304 costs none."""

    def __init__(self, size: int = 10_000) -> None:
        self._items: dict[Hashable, tuple[float, object]] = {}
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: Hashable) -> object | None:
        item = self._items.get(key)
        if item is None or item[0] < time.monotonic():
            return None
        return item[1]

    def clear(self) -> None:
        with self._lock:
            self._items = {}

    def put(self, key: Hashable, value: object, ttl_s: float) -> None:
        if ttl_s <= 0:
            return
        with self._lock:
            if len(self._items) >= self._size:
                now = time.monotonic()
                self._items = {k: v for k, v in self._items.items() if v[0] >= now}
                if len(self._items) >= self._size:
                    self._items.clear()
            self._items[key] = (time.monotonic() + ttl_s, value)


_grants = _Memo()  # (session key, topics) → the user's view of those topics
_cursors = _Memo()  # view → its cursor


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
    try:
        topics = live_topics(request.GET.get("topics", ""))
    except UnknownTopic:
        topics = None
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    view = _grants.get((session_key, topics)) if session_key and topics else None
    if view is None:
        if not request.user.is_authenticated:
            return JsonResponse(error_body(401), status=401)
        if topics is None:
            return JsonResponse(error_body(400, "unknown_topic", "알 수 없는 목록입니다."), status=400)
        if not live_staff_allowed(request.user, topics):
            return JsonResponse(error_body(403, "permission_denied", "이 목록을 볼 권한이 없습니다."), status=403)
        view = live_staff_view(user=request.user, topics=topics)
        _grants.put((session_key, topics), view, settings.CS_LIVE_GRANT_S)
    cursor = _cursors.get(view)
    if cursor is None:
        cursor = live_view_cursor(view)
        _cursors.put(view, cursor, settings.CS_LIVE_CURSOR_CACHE_S)
    etag = f'"{cursor}"'
    if _not_modified(request, etag):
        return _private(HttpResponseNotModified(), etag, "Cookie")
    return _private(JsonResponse({"cursor": cursor, "counts": live_counts(topics=topics)}), etag, "Cookie")


class LiveChangesApi(APIView):
    """A customer's own change cursor: it moves when one of their tickets or requests changes (an operator's
    answer or a request's outcome appended to their conversation among them: both are written with the audit row
    the cursor reads), or when their unread count does, never for anyone else's."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema(
        summary="내 문의·요청 변경 확인",
        description=(
            "열어 둔 화면이 몇 초마다 묻는다: `If-None-Match`에 마지막 `ETag`를 보내면 "
            "바뀐 것이 없을 때 304(본문 없음), 내 티켓이나 요청이 바뀌었으면(상담원 답변, 승인·반려·환불완료·처리실패 "
            "안내 포함) 200과 새 `cursor`, 그리고 아직 읽지 않은 상담원 답변 수 `unread`. "
            "다른 고객의 변경으로는 바뀌지 않는다."
        ),
        responses={
            200: inline_serializer(
                "LiveCursor",
                {
                    "cursor": serializers.CharField(),
                    "unread": serializers.IntegerField(help_text="읽지 않은 상담원 답변 수(모든 문의 합계)"),
                },
            ),
            304: OpenApiResponse(description="바뀐 것 없음(If-None-Match와 같은 ETag)"),
        },
    )
    def get(self, request):
        unread = customer_unread_count(customer_id=request.customer.pk)
        # Reading an answer changes no audit row, only the count: the token covers both, so the badge follows.
        cursor = salted_hmac(
            "cs_project.live", f"{live_customer_cursor(customer_id=request.customer.pk)}:{unread}"
        ).hexdigest()[:20]
        etag = f'"{cursor}"'
        if _not_modified(request, etag):
            return _private(Response(status=304), etag, "Authorization")
        return _private(Response({"cursor": cursor, "unread": unread}), etag, "Authorization")

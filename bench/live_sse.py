"""The mechanism the live-lists benchmark compares conditional polling against, served only by the benchmark's
URLs: server-sent events for the staff topics, built as well as it can be without Redis.

One checker thread per server process computes each watched token every `CS_LIVE_SSE_INTERVAL_S` (the same
common.live cursor the polling endpoint answers with) and wakes every open stream; a stream writes an event only
when its token moved, and a comment line every 15 s so a dead client is noticed. A stream holds no database
connection (it is closed after the permission check). What it does hold is a server thread, or with gunicorn's
sync workers a whole worker, for as long as the list is open: that is what the benchmark measures."""

from __future__ import annotations

import os
import threading
import time

from django.db import close_old_connections, connection
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse

from common.apis import error_body
from common.live import UnknownTopic, live_staff_allowed, live_staff_cursor, live_topics

KEEPALIVE_S = 15.0


class _Checker:
    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.changed = threading.Condition()
        self.tokens: dict[tuple, str] = {}
        self._watched: dict[tuple, tuple] = {}  # key → (user, topics), the first stream's user for that key
        self._thread: threading.Thread | None = None

    def watch(self, key: tuple, user, topics: tuple[str, ...], token: str) -> None:
        with self.changed:
            self._watched.setdefault(key, (user, topics))
            self.tokens.setdefault(key, token)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bench-live-sse", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.interval_s)
            close_old_connections()
            fresh = {
                key: live_staff_cursor(user=user, topics=topics) for key, (user, topics) in dict(self._watched).items()
            }
            with self.changed:
                self.tokens.update(fresh)
                self.changed.notify_all()


_checker = _Checker(float(os.environ.get("CS_LIVE_SSE_INTERVAL_S", "2")))


def live_staff_stream_view(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return JsonResponse(error_body(401), status=401)
    try:
        topics = live_topics(request.GET.get("topics", ""))
    except UnknownTopic:
        return JsonResponse(error_body(400, "unknown_topic"), status=400)
    if not live_staff_allowed(request.user, topics):
        return JsonResponse(error_body(403), status=403)
    user = request.user
    # Streams whose users see the same sources share one computation.
    key = (topics, tuple(sorted(user.get_all_permissions())), user.is_superuser)
    token = live_staff_cursor(user=user, topics=topics)
    _checker.watch(key, user, topics, token)
    connection.close()  # a stream lasts as long as the page: it must not hold a database connection

    def events():
        last = token
        yield f"event: hello\ndata: {token}\n\n"
        quiet_since = time.monotonic()
        while True:
            with _checker.changed:
                _checker.changed.wait(timeout=KEEPALIVE_S)
                now = _checker.tokens.get(key, last)
            if now != last:
                last = now
                quiet_since = time.monotonic()
                yield f"event: change\ndata: {now}\n\n"
            elif time.monotonic() - quiet_since >= KEEPALIVE_S:
                quiet_since = time.monotonic()
                yield ": keepalive\n\n"

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front would have to pass events through unbuffered
    return response

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.http import HttpRequest, HttpResponse

from privacy.access import PENDING_ATTR, access_flush


class AccessLogMiddleware:
    """Writes the access records a request collected (`privacy.access.access_note`) in one INSERT when the
    response is closed, i.e. after the WSGI server has sent it: the operator does not wait for the write."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        pending = getattr(request, PENDING_ATTR, None)
        if pending:
            # Django runs a response's resource closers from `close()`, which every WSGI server calls after the
            # last byte (and the test client calls too); the list is taken now so a late note is not lost silently.
            records = list(pending)
            pending.clear()
            response._resource_closers.append(partial(access_flush, records))
        return response

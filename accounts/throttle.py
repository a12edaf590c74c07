"""Login throttling with django-axes: its settings point here for the client address, the username key and
the lockout answer (429 with Retry-After; JSON `{code, detail}` under /api/)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from accounts import policy

LOCKED_CODE = "login_locked"


def locked_message(seconds: int) -> str:
    minutes = max(1, -(-seconds // 60))
    return f"로그인 시도가 너무 많아 잠시 잠겼습니다. {minutes}분 후 다시 시도해 주세요."


def client_ip(request: HttpRequest) -> str | None:
    """AXES_CLIENT_IP_CALLABLE: REMOTE_ADDR, or behind CS_TRUSTED_PROXY_COUNT proxies their X-Forwarded-For entry."""
    meta = request.META
    candidate = policy.forwarded_client_ip(
        remote_addr=meta.get("REMOTE_ADDR"),
        forwarded_for=meta.get("HTTP_X_FORWARDED_FOR", ""),
        trusted_proxies=settings.CS_TRUSTED_PROXY_COUNT,
    )
    try:
        return str(ipaddress.ip_address(candidate)) if candidate else None
    except ValueError:
        return meta.get("REMOTE_ADDR")


def client_username(request: HttpRequest, credentials: Mapping | None) -> str | None:
    """AXES_USERNAME_CALLABLE: the submitted username, normalized (see `policy.username_key`)."""
    if credentials and "username" in credentials:
        return policy.username_key(credentials.get("username"))
    data = getattr(request, "data", None)
    if not isinstance(data, Mapping):
        data = request.POST
    return policy.username_key(data.get("username"))


def login_retry_after(request: HttpRequest, credentials: Mapping | None) -> int:
    """Seconds until this username or address may try again: from its latest counted failure."""
    now = timezone.now()
    cooloff = get_cool_off(request)
    username = client_username(request, credentials)
    ip = getattr(request, "axes_ip_address", None) or client_ip(request)
    match = Q(pk__in=[])
    if username:
        match |= Q(username=username)
    if ip:
        match |= Q(ip_address=ip)
    last = AccessAttempt.objects.filter(match, attempt_time__gte=now - cooloff).aggregate(last=Max("attempt_time"))
    return policy.retry_after_seconds(last_failure_at=last["last"], cooloff=cooloff, now=now)


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Mapping | None = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE (the admin login form): 429 with Retry-After."""
    seconds = login_retry_after(request, credentials)
    detail = locked_message(seconds)
    if request.path.startswith("/api/"):
        response = JsonResponse({"code": LOCKED_CODE, "detail": detail}, status=429)
    else:
        response = render(request, "accounts/login_locked.html", {"detail": detail, "title": "로그인 잠김"}, status=429)
    response["Retry-After"] = str(seconds)
    return response

"""Probes for load balancers and orchestrators. Plain Django views: no authentication, no session, no DRF."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ops.checks import readiness_checks


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is alive and serving requests. Touches nothing else (no database)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Ready for traffic: the database answers SELECT 1 and, when REDIS_URL is set, Redis answers PING."""
    checks = readiness_checks()
    failed = [c.name for c in checks if not c.ok]
    body = {
        "status": "unavailable" if failed else "ready",
        "checks": {c.name: "ok" if c.ok else "fail" for c in checks},
        "failed": failed,
    }
    return JsonResponse(body, status=503 if failed else 200)

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import IsAdminUser

from common.schema import STAFF_SCHEMA_SETTINGS
from cs_project.live import live_staff_changes_view

admin.site.site_header = "CS 데스크 운영자 화면"
admin.site.site_title = "CS 데스크"
admin.site.index_title = "승인 대기열 · 문의 · 초안 검토"

urlpatterns = [
    path("", include("ops.urls")),  # /healthz, /readyz
    path("admin/metrics/", include("metrics.urls")),  # staff dashboard; before admin/ so the admin doesn't take it
    # Open admin lists ask whether they moved (cs_project/live.py); before admin/ so the admin doesn't take it.
    path("admin/live/", live_staff_changes_view, name="live-staff"),
    path("admin/", admin.site.urls),
    # Staff endpoints are documented only to staff (session or token); before api/ so the include doesn't take them.
    path(
        "api/ops/schema/",
        SpectacularAPIView.as_view(custom_settings=STAFF_SCHEMA_SETTINGS, permission_classes=[IsAdminUser]),
        name="schema-ops",
    ),
    path(
        "api/ops/docs/",
        SpectacularSwaggerView.as_view(url_name="schema-ops", permission_classes=[IsAdminUser]),
        name="api-docs-ops",
    ),
    # The shop connection: /api/integration/* (Bearer API key), /api/auth/shop-session/, /widget.js, /widget/<name>/
    path("", include("integration.urls")),
    path("api/", include("cs_project.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("web.urls")),
]

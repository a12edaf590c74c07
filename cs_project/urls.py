from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

admin.site.site_header = "CS 데스크 운영자 화면"
admin.site.site_title = "CS 데스크"
admin.site.index_title = "승인 대기열 · 문의 · 초안 검토"

urlpatterns = [
    path("", include("ops.urls")),  # /healthz, /readyz
    path("admin/metrics/", include("metrics.urls")),  # staff dashboard; before admin/ so the admin doesn't take it
    path("admin/", admin.site.urls),
    path("api/", include("common.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("web.urls")),
]

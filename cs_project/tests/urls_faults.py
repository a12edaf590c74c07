"""A test-only urlconf: the project's URLs plus two views under /api/ that crash, to show what a crash
answers (inside a DRF view and in a plain Django view)."""

from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from cs_project.urls import urlpatterns as project_urlpatterns

SECRET = "secret-internal-detail-7f3a"


class CrashApi(APIView):
    permission_classes = [AllowAny]

    def get(self, request):
        raise RuntimeError(SECRET)


def crash_view(request):
    raise RuntimeError(SECRET)


urlpatterns = [
    path("api/test-crash/", CrashApi.as_view()),
    path("api/test-crash-plain/", crash_view),
    *project_urlpatterns,
]

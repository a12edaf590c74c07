"""The project's URLs plus what only the live-lists benchmark serves: the server-sent-events endpoint it measures
against conditional polling (bench/live_sse.py), and /static/ for the headless browser (DEBUG is off)."""

from django.contrib.staticfiles.views import serve
from django.urls import path, re_path

from bench.live_sse import live_staff_stream_view
from cs_project.urls import urlpatterns as project_urlpatterns

urlpatterns = [
    path("bench/live-sse/", live_staff_stream_view, name="bench-live-sse"),
    re_path(r"^static/(?P<path>.*)$", serve, {"insecure": True}),
    *project_urlpatterns,
]

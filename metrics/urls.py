"""Mounted at admin/metrics/ by cs_project/urls.py, *before* the admin's own URLs.

`admin.site.admin_view` gives the admin's own guard: active staff only, everyone else is redirected to
the admin login (with `next=`), and the page is never cached. The view itself asks for the dashboard's own
permission, `metrics.view_dashboard` (403 without it).
"""

from django.contrib import admin
from django.urls import path

from metrics.views import metrics_dashboard_view

app_name = "metrics"

urlpatterns = [
    path("", admin.site.admin_view(metrics_dashboard_view), name="dashboard"),
]

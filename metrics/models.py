from django.db import models


class Dashboard(models.Model):
    """No table: Django hangs permissions on models, and the dashboard's own permission hangs here. Reading the
    dashboard (its page and its JSON) needs `metrics.view_dashboard`; `is_staff` alone only reaches the admin."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("view_dashboard", "운영 지표 대시보드를 볼 수 있음")]
        verbose_name = "운영 지표 대시보드"
        verbose_name_plural = "운영 지표 대시보드"

    def __str__(self) -> str:
        return "운영 지표 대시보드"

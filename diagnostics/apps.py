from django.apps import AppConfig


class DiagnosticsConfig(AppConfig):
    name = "diagnostics"
    verbose_name = "서비스 이벤트·오류 진단"

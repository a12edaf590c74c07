from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "운영"

    def ready(self) -> None:
        from ops.logs import structlog_configure, use_django_logging_in_celery

        structlog_configure()
        use_django_logging_in_celery()

from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "운영"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from django.core.signals import request_started

        from ops.background import embedded_background_ensure
        from ops.logs import structlog_configure, use_django_logging_in_celery
        from ops.sweep import embedded_sweeper_ensure

        structlog_configure()
        use_django_logging_in_celery()
        request_started.connect(embedded_sweeper_ensure, dispatch_uid="ops.embedded_sweeper")
        request_started.connect(embedded_background_ensure, dispatch_uid="ops.embedded_background")

from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "공통"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from django.core.signals import got_request_exception

        from common.outage import note_request_exception

        got_request_exception.connect(note_request_exception, dispatch_uid="common.outage")

from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "문의"

    def ready(self) -> None:
        from tickets import checks  # noqa: F401  (registers the system check)

from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "문의"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from common.live import live_topic_register
        from tickets import checks  # noqa: F401  (registers the system check)
        from tickets.selectors import ticket_events_since_marker

        live_topic_register(
            "tickets",
            permission="tickets.view_ticket",
            events=ticket_events_since_marker,
            customer_events=lambda customer_id: ticket_events_since_marker(customer_id=customer_id),
        )

from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "문의"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from common.live import live_topic_register
        from common.outbox import outbox_register
        from tickets import checks  # noqa: F401  (registers the system check)
        from tickets.notices import REPLY_NOTICE_TOPIC, reply_notice_send
        from tickets.selectors import ticket_events_since_marker

        # The reply e-mail (tickets.notices): its own outbox row per answer, sent after the commit, retried.
        outbox_register(REPLY_NOTICE_TOPIC, reply_notice_send)

        live_topic_register(
            "tickets",
            permission="tickets.view_ticket",
            events=ticket_events_since_marker,
            customer_events=lambda customer_id: ticket_events_since_marker(customer_id=customer_id),
        )

from django.apps import AppConfig


class ActionsConfig(AppConfig):
    name = "actions"
    verbose_name = "처리 기록"

    def ready(self) -> None:
        # Imports here, not for a cycle: an apps.py module loads before the app registry is ready.
        from actions.selectors import action_events_since_marker, action_queue_counts
        from common.live import live_topic_register

        live_topic_register(
            "actions",
            permission="actions.view_actionrecord",
            events=action_events_since_marker,
            customer_events=lambda customer_id: action_events_since_marker(customer_id=customer_id),
            counts=action_queue_counts,
        )

from django.apps import AppConfig


class IntegrationConfig(AppConfig):
    name = "integration"
    verbose_name = "쇼핑몰 연동"

    def ready(self) -> None:
        from django.conf import settings

        from actions.execution import external_executor_register
        from common.events import SHOP_EVENT_TOPIC
        from common.outbox import outbox_register
        from integration import schema  # noqa: F401  (the Bearer scheme in the OpenAPI document)
        from integration.services import WEBHOOK_TOPIC, order_executor, shop_event_route
        from integration.tasks import webhook_deliver_handler

        outbox_register(SHOP_EVENT_TOPIC, shop_event_route)
        outbox_register(
            WEBHOOK_TOPIC,
            webhook_deliver_handler,
            redeliver_after_s=settings.CS_WEBHOOK_REDELIVER_S,
            max_attempts=lambda: settings.CS_WEBHOOK_MAX_ATTEMPTS,
            keep_done=True,  # the delivery record the event list shows, kept as long as the event
        )
        external_executor_register(order_executor)

from django.apps import AppConfig


class IntegrationConfig(AppConfig):
    name = "integration"
    verbose_name = "쇼핑몰 연동"

    def ready(self) -> None:
        from django.conf import settings

        from accounts.issuers import token_issuer_register
        from actions.execution import external_executor_register
        from common.events import SHOP_EVENT_TOPIC
        from common.outbox import outbox_register
        from integration import schema  # noqa: F401  (the Bearer scheme in the OpenAPI document)
        from integration.services.results import order_executor
        from integration.services.sessions import (
            SHOP_PAUSED_CODE,
            SHOP_PAUSED_MESSAGE,
            TOKEN_ISSUER,
            integration_vouches,
        )
        from integration.services.webhooks import WEBHOOK_TOPIC, customer_shop_notifies, shop_event_route
        from integration.tasks import webhook_deliver_handler
        from tickets.hooks import shop_notifies_register

        # Routing is two indexed reads and, for a connected shop, its feed row and delivery request: done inside the
        # change's own transaction (atomic with it, nothing to dispatch after the commit); a failure falls back to
        # the usual dispatch and the sweep.
        outbox_register(SHOP_EVENT_TOPIC, shop_event_route, inline=True)
        outbox_register(
            WEBHOOK_TOPIC,
            webhook_deliver_handler,
            redeliver_after_s=settings.CS_WEBHOOK_REDELIVER_S,
            max_attempts=lambda: settings.CS_WEBHOOK_MAX_ATTEMPTS,
            keep_done=True,  # the delivery record the event list shows, kept as long as the event
        )
        external_executor_register(order_executor)
        token_issuer_register(
            TOKEN_ISSUER, check=integration_vouches, code=SHOP_PAUSED_CODE, message=SHOP_PAUSED_MESSAGE
        )
        # A shop's own customer hears of an answer from the shop (ticket.replied), not from the desk's e-mail.
        shop_notifies_register(customer_shop_notifies)

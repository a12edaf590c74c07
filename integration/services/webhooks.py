"""Events out: the outbox handler that routes a `shop.event` to the integration that owns its order (or
customer), the signed webhook delivery with its retries, holding and releasing while an integration is paused,
the replay, and the event feed."""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.db import transaction

from common.actors import Actor
from common.errors import NotFound
from common.events import SHOP_EVENT_TOPIC
from common.outbox import (
    OutboxMessage,
    outbox_defer,
    outbox_done,
    outbox_enqueue,
    outbox_hold,
    outbox_release,
    outbox_request,
)
from integration import policy
from integration.models import Integration, ShopEvent, SyncRecord
from integration.outbound import TargetForbidden, webhook_post
from integration.services.access import integration_require_scope, integration_signing_secret
from integration.services.sync import customer_owner, order_owner

log = logging.getLogger(__name__)


WEBHOOK_TOPIC = "webhook.deliver"


def customer_shop_notifies(customer_id: str) -> bool:
    """The tickets hook: a customer a connected shop sent is told of an answer by that shop (it gets
    `ticket.replied`), so the desk does not e-mail them as well."""
    return SyncRecord.objects.filter(kind="customer", external_id=customer_id).exists()


def shop_event_route(message: OutboxMessage) -> str:
    """The outbox handler for `shop.event`: the event goes to the integration that owns the order (or the
    customer); it becomes a ShopEvent (the feed) and, with a webhook URL, a delivery. Events about the
    desk's own demo data go nowhere. An integration that is paused gets its events all the same: its feed
    answers again once its key is accepted again, and its deliveries wait (HELD, `webhook_attempt`) until it
    is active (`integration_update`, or the sweep's `webhooks_release_held`). Idempotent: the event id is the
    outbox row's."""
    payload = message.payload
    data = payload.get("data") or {}
    owner = order_owner(data.get("order_id")) or customer_owner(data.get("customer_id"))
    key = message.dedupe_key.split(":", 1)[1]
    with transaction.atomic():
        if owner is not None:
            event, created = ShopEvent.objects.get_or_create(
                event_id=f"evt_{message.pk}",
                defaults={
                    "integration": owner,
                    "type": payload["type"],
                    "data": data,
                    "created_at": datetime.fromisoformat(payload["created_at"]),
                },
            )
            if owner.webhook_url:
                outbox_enqueue(topic=WEBHOOK_TOPIC, key=event.event_id, payload={"shop_event_id": event.pk})
        outbox_done(topic=SHOP_EVENT_TOPIC, key=key)
    return "routed" if owner is not None else "unrouted"


def event_body(event: ShopEvent) -> bytes:
    return json.dumps(
        {"id": event.event_id, "type": event.type, "created_at": event.created_at.isoformat(), "data": event.data},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def webhook_attempt(*, outbox_id: int) -> str:
    """POST one event to its integration's webhook, signed. 2xx → the delivery is DONE; anything else → the
    outbox retries with backoff and jitter (DEAD after CS_WEBHOOK_MAX_ATTEMPTS): a redirect (`http_302`, never
    followed) and a URL that is or resolves to an internal address (`target_forbidden`, nothing sent; see
    integration.outbound) included. While the integration is paused nothing is sent: the delivery is HELD, not
    failed, until the integration is active again. Idempotent: a finished delivery is not sent again (receivers
    still dedupe on X-CS-Event-Id: delivery is at least once)."""
    message = OutboxMessage.objects.filter(pk=outbox_id, topic=WEBHOOK_TOPIC).first()
    finished = (OutboxMessage.Status.DONE, OutboxMessage.Status.DEAD, OutboxMessage.Status.HELD)
    if message is None or message.status in finished:  # HELD: only after its release (PENDING again)
        return "skipped"
    event = ShopEvent.objects.select_related("integration").filter(pk=message.payload["shop_event_id"]).first()
    key = message.dedupe_key.split(":", 1)[1]
    if event is None or not event.integration.webhook_url:
        outbox_done(topic=WEBHOOK_TOPIC, key=key)
        return "skipped"
    if not event.integration.active and _held_while_paused(event.integration_id, outbox_id):
        log.info("webhook.held event_id=%s integration=%s", event.event_id, event.integration.name)
        return "held"
    body = event_body(event)
    header = policy.signature_header(integration_signing_secret(event.integration), body, t=int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "cs-desk-webhook/1",
        "X-CS-Event-Id": event.event_id,
        "X-CS-Event-Type": event.type,
        "X-CS-Signature": header,
    }
    try:
        status = webhook_post(
            event.integration.webhook_url,
            body,
            headers,
            timeout=float(settings.CS_WEBHOOK_TIMEOUT_S),
            allow_private=bool(settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS),
        )
    except TargetForbidden:
        outbox_defer(message_id=outbox_id, error=TargetForbidden.code)
        log.warning("webhook.refused event_id=%s error=%s", event.event_id, TargetForbidden.code)
        return "failed"
    except (OSError, ValueError, http.client.HTTPException) as exc:
        outbox_defer(message_id=outbox_id, error=type(exc).__name__)
        log.warning("webhook.failed event_id=%s error=%s", event.event_id, type(exc).__name__)
        return "failed"
    if policy.webhook_success(status):
        outbox_done(topic=WEBHOOK_TOPIC, key=key)
        log.info("webhook.delivered event_id=%s type=%s status=%d", event.event_id, event.type, status)
        return "delivered"
    outbox_defer(message_id=outbox_id, error=f"http_{status}")
    log.warning("webhook.failed event_id=%s status=%d", event.event_id, status)
    return "failed"


INTEGRATION_PAUSED = "integration_paused"


def _held_while_paused(integration_id: int, outbox_id: int) -> bool:
    """Put the delivery aside if its integration is paused. Under the integration's row lock, which
    `integration_update` also takes: a reactivation either sees this row HELD (and releases it) or happened
    first (and the delivery goes out now)."""
    with transaction.atomic():
        integration = Integration.objects.select_for_update().get(pk=integration_id)
        return not integration.active and outbox_hold(message_id=outbox_id, reason=INTEGRATION_PAUSED)


def held_deliveries(integration_ids: Sequence[int] | None = None) -> list[int]:
    """The HELD webhook deliveries of these integrations (all active ones when None). Held rows are few: the
    (topic, status) index finds them, and their events are matched by id."""
    held = dict(
        OutboxMessage.objects.filter(topic=WEBHOOK_TOPIC, status=OutboxMessage.Status.HELD).values_list(
            "pk", "payload__shop_event_id"
        )
    )
    if not held:
        return []
    events = ShopEvent.objects.filter(pk__in=set(held.values()))
    events = (
        events.filter(integration_id__in=integration_ids)
        if integration_ids is not None
        else events.filter(integration__active=True)
    )
    wanted = set(events.values_list("pk", flat=True))
    return [pk for pk, event_pk in held.items() if event_pk in wanted]


def webhooks_release_held() -> int:
    """The sweep's part: deliveries held for integrations that are active again however that happened (the
    admin releases them at once through `integration_update`; this catches any other way back)."""
    with transaction.atomic():
        return outbox_release(message_ids=held_deliveries())


def webhook_replay(*, event: ShopEvent, actor: Actor) -> OutboxMessage:
    """Send again from the start (attempts reset): the admin's replay of a DEAD (or any) delivery."""
    message = outbox_request(topic=WEBHOOK_TOPIC, key=event.event_id, payload={"shop_event_id": event.pk})
    log.info("webhook.replay event_id=%s actor=%s", event.event_id, actor.type)
    return message


def event_list(*, integration: Integration, after: str | None, limit: int) -> list[ShopEvent]:
    integration_require_scope(integration, Integration.Scope.EVENTS_READ)
    queryset = ShopEvent.objects.filter(integration=integration)
    if after:
        cursor = ShopEvent.objects.filter(integration=integration, event_id=after).values_list("pk", flat=True).first()
        if cursor is None:
            raise NotFound(f"이벤트 '{after}'을(를) 찾을 수 없습니다.")
        queryset = queryset.filter(pk__gt=cursor)
    return list(queryset.order_by("pk")[:limit])

"""Demo data for the diagnostic tool: request logs, traces and usage events from fixtures/service_events.json."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from common.errors import DomainError
from diagnostics.models import ServiceEvent
from orders.models import Customer

log = logging.getLogger(__name__)

_FIELDS = (
    "kind",
    "name",
    "http_method",
    "status_code",
    "latency_ms",
    "trace_id",
    "span_name",
    "error_code",
    "message",
    "attributes",
)


class ServiceEventFixtureError(DomainError):
    pass


def _aware(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    if timezone.is_naive(moment):
        raise ServiceEventFixtureError(f"발생일시에 시간대 오프셋이 없습니다: {value}", code="naive_datetime")
    return moment


@transaction.atomic
def service_events_fixture_load(*, path: Path) -> int:
    """Create the events that are missing, by `event_key`; existing rows are left as they are.

    Returns how many were created, so a second load returns 0. The customers must already exist
    (load the shop fixture first).
    """
    with Path(path).open(encoding="utf-8") as fh:
        rows = json.load(fh)["events"]
    wanted = {row["customer_id"] for row in rows if row.get("customer_id")}
    missing = wanted - set(Customer.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    if missing:
        raise ServiceEventFixtureError(
            f"고객이 먼저 등록되어야 합니다: {', '.join(sorted(missing))}", code="customer_missing"
        )
    keys = [row["event_key"] for row in rows]
    existing = set(ServiceEvent.objects.filter(event_key__in=keys).values_list("event_key", flat=True))
    new = [
        ServiceEvent(
            event_key=row["event_key"],
            customer_id=row.get("customer_id"),
            occurred_at=_aware(row["occurred_at"]),
            **{name: row[name] for name in _FIELDS if row.get(name) is not None},
        )
        for row in rows
        if row["event_key"] not in existing
    ]
    for event in new:
        event.full_clean(exclude=["customer"], validate_unique=False, validate_constraints=False)
    ServiceEvent.objects.bulk_create(new, ignore_conflicts=True)
    log.info("service_events.fixture_loaded created=%s skipped=%s", len(new), len(existing))
    return len(new)

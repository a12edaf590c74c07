from __future__ import annotations

import itertools
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

SEOUL = ZoneInfo("Asia/Seoul")

# The fixture's three stories: (customer, inquiry time, expected verdict).
C005_INQUIRY = datetime(2026, 7, 26, 14, 10, tzinfo=SEOUL)
C007_INQUIRY = datetime(2026, 7, 27, 9, 40, tzinfo=SEOUL)
C008_INQUIRY = datetime(2026, 7, 27, 11, 20, tzinfo=SEOUL)


@pytest.fixture
def service_events(shop):
    from diagnostics.services import service_events_fixture_load

    return service_events_fixture_load(path=settings.FIXTURES_DIR / "service_events.json")


@pytest.fixture
def event_factory(customer):
    """Service events of the factory-built `customer` unless told whose."""
    from diagnostics.models import ServiceEvent

    counter = itertools.count(1)

    def make(**fields):
        fields.setdefault("event_key", f"test-{next(counter)}")
        fields.setdefault("customer_id", customer.customer_id)
        fields.setdefault("kind", ServiceEvent.Kind.USAGE_EVENT)
        fields.setdefault("name", "app_open")
        return ServiceEvent.objects.create(**fields)

    return make

import json
from datetime import timedelta

import pytest
from django.conf import settings

from diagnostics.models import ServiceEvent
from diagnostics.services import ServiceEventFixtureError, service_events_fixture_load
from orders.tests.factories import CustomerFactory

FIXTURE = settings.FIXTURES_DIR / "service_events.json"


@pytest.mark.django_db
def test_fixture_load_is_idempotent(shop):
    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))["events"]
    assert service_events_fixture_load(path=FIXTURE) == len(rows)
    assert service_events_fixture_load(path=FIXTURE) == 0
    assert ServiceEvent.objects.count() == len(rows)


@pytest.mark.django_db
def test_fixture_load_keeps_raw_message_and_kst_times(service_events):
    event = ServiceEvent.objects.get(event_key="c005-20260726-0005")
    assert event.kind == ServiceEvent.Kind.REQUEST_LOG
    assert (event.status_code, event.error_code, event.customer_id) == (502, "PG_TIMEOUT", "C005")
    assert "4111-1111-1111-1111" in event.message  # stored raw; redaction happens on read
    assert event.occurred_at.utcoffset() == timedelta(0)
    assert event.occurred_at.isoformat() == "2026-07-26T04:58:43+00:00"
    assert event.is_error


def _one_event_file(tmp_path, *, customer_id: str, occurred_at: str):
    """An events fixture file holding one app-open event."""
    path = tmp_path / "events.json"
    event = {
        "event_key": "k1",
        "customer_id": customer_id,
        "occurred_at": occurred_at,
        "kind": "USAGE_EVENT",
        "name": "app_open",
    }
    path.write_text(json.dumps({"events": [event]}), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_fixture_load_refuses_when_customers_are_missing(db, tmp_path):
    path = _one_event_file(tmp_path, customer_id="C404", occurred_at="2026-07-26T10:00:00+09:00")
    with pytest.raises(ServiceEventFixtureError) as exc:
        service_events_fixture_load(path=path)
    assert exc.value.code == "customer_missing"
    assert ServiceEvent.objects.count() == 0


@pytest.mark.django_db
def test_fixture_load_refuses_naive_times(tmp_path):
    customer = CustomerFactory()
    path = _one_event_file(tmp_path, customer_id=customer.customer_id, occurred_at="2026-07-26T10:00:00")
    with pytest.raises(ServiceEventFixtureError):
        service_events_fixture_load(path=path)
    assert ServiceEvent.objects.count() == 0

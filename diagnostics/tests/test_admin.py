import pytest
from django.urls import reverse

from diagnostics.models import ServiceEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_logged_in(client, service_events):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.get(username="admin"))
    return client


def test_changelist_shows_events_redacted(admin_client_logged_in):
    response = admin_client_logged_in.get(reverse("admin:diagnostics_serviceevent_changelist"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "/api/payments" in body
    assert "[내부URL]" in body
    for raw in ("pg-gateway.internal", "jiwoo.yoon@example.com", "4111-1111"):
        assert raw not in body


def test_change_page_is_read_only_and_redacted(admin_client_logged_in):
    event = ServiceEvent.objects.get(event_key="c005-20260726-0005")
    url = reverse("admin:diagnostics_serviceevent_change", args=[event.pk])
    response = admin_client_logged_in.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    assert "PgClient.java" not in body and "pg-gateway.internal" not in body and "eyJhbGci" not in body
    assert 'name="_save"' not in body
    assert admin_client_logged_in.post(url, {"name": "changed"}).status_code == 403
    assert admin_client_logged_in.get(reverse("admin:diagnostics_serviceevent_add")).status_code == 403
    event.refresh_from_db()
    assert event.name == "/api/payments"

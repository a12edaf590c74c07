import pytest
from django.urls import reverse

from diagnostics.models import ServiceEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_logged_in(client, service_events):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.get(username="admin"))
    return client


def test_changelist_shows_events_with_korean_labels_and_no_raw_log(admin_client_logged_in):
    response = admin_client_logged_in.get(reverse("admin:diagnostics_serviceevent_changelist"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "/api/payments" in body
    assert '<span title="blank_screen">빈 화면</span>' in body
    assert '<span title="PG_TIMEOUT">PG사 응답 시간 초과</span>' in body
    assert "PG사 응답 시간 초과</a>" in body  # the error-code filter offers labels, not codes
    for raw in ("pg-gateway.internal", "jiwoo.yoon@example.com", "4111-1111", "session_id="):
        assert raw not in body


def test_change_page_shows_attributes_as_korean_fields_and_the_log_redacted(admin_client_logged_in):
    event = ServiceEvent.objects.get(event_key="c005-20260726-0010")  # checkout_click with amount and retry
    body = admin_client_logged_in.get(reverse("admin:diagnostics_serviceevent_change", args=[event.pk])).content
    html = body.decode()
    assert "<dt><span title=\"amount\">금액</span></dt><dd style='margin:0'>129,000원</dd>" in html
    assert "<dt><span title=\"retry\">재시도</span></dt><dd style='margin:0'>예</dd>" in html
    assert '"product_id":' not in html and "{" not in html.split("속성(가림)")[1].split("</div>")[0]

    logged = ServiceEvent.objects.get(event_key="c005-20260726-0011")
    html = admin_client_logged_in.get(reverse("admin:diagnostics_serviceevent_change", args=[logged.pk])).content
    html = html.decode()
    assert "[이메일]" in html and "doyoon.jung@example.com" not in html and "tok_live_" not in html
    profile = ServiceEvent.objects.get(event_key="c007-20260727-0006")
    html = admin_client_logged_in.get(reverse("admin:diagnostics_serviceevent_change", args=[profile.pk]))
    assert "yejun.cho@example.com" not in html.content.decode()  # a masked attribute stays masked


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

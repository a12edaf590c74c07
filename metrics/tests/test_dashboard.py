"""The staff dashboard at /admin/metrics/ through real requests: staff see charts, others go to the login."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from metrics.tests.dataset import build_dataset
from metrics.tests.test_selectors import DAY1, EXPECTED

pytestmark = pytest.mark.django_db

URL = "/admin/metrics/"
CHART = '<svg xmlns="http://www.w3.org/2000/svg" class="metrics-chart '  # not the admin's own icon sprites


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("metrics-viewer", password="pw-12345678", is_staff=True)


def test_the_url_is_mounted_under_admin():
    assert reverse("metrics:dashboard") == URL


def test_staff_see_the_dashboard_with_svg_charts(client, staff):
    build_dataset()
    client.force_login(staff)
    response = client.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert page.count(CHART) == 8
    assert 'class="metrics-chart column empty' not in page  # every chart has data
    assert page.count('class="bar"') >= 10
    for text in ("운영 지표", "초안 채택률", "60%", "분류별 초안 반려율", "배송", "25%", "환불요청", "현재 승인 대기"):
        assert text in page
    assert "cdn" not in page.lower() and '<script src="http' not in page  # nothing fetched from outside
    assert response.templates[0].name == "metrics/dashboard.html"
    assert "admin/base_site.html" in [t.name for t in response.templates]


def test_date_filter_narrows_the_report(client, staff):
    build_dataset()
    client.force_login(staff)
    response = client.get(URL, {"since": "2026-07-26", "until": "2026-07-26"})
    assert response.status_code == 200
    assert response.context["report"]["overall"] == DAY1
    assert 'value="2026-07-26"' in response.content.decode()


def test_json_view_returns_the_report(client, staff):
    build_dataset()
    client.force_login(staff)
    response = client.get(URL, {"format": "json"})
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == EXPECTED


def test_reversed_dates_show_an_error_instead_of_a_report(client, staff):
    client.force_login(staff)
    response = client.get(URL, {"since": "2026-07-27", "until": "2026-07-26"})
    assert response.status_code == 200
    assert response.context["report"] is None
    assert "시작일이 종료일보다 늦습니다." in response.content.decode()


def test_empty_database_draws_empty_charts(client, staff):
    client.force_login(staff)
    page = client.get(URL).content.decode()
    assert page.count(CHART) == 8 and page.count("데이터 없음</text>") == 8


def test_anonymous_is_sent_to_the_admin_login(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"] == f"/admin/login/?next={URL}"


def test_non_staff_user_is_refused(client):
    customer = get_user_model().objects.create_user("customer", password="pw-12345678", is_staff=False)
    client.force_login(customer)
    response = client.get(URL)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get(URL, {"format": "json"}).status_code == 302  # the JSON too


def test_admin_index_links_to_the_dashboard_and_still_lists_apps(client, staff):
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    page = client.get("/admin/").content.decode()
    assert f'href="{URL}"' in page and "운영 지표 대시보드" in page
    assert "처리 기록" in page  # the app list is still there
    assert "recent-actions-module" in page  # and so is the sidebar

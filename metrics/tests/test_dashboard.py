"""The staff dashboard at /admin/metrics/ through real requests: staff see charts, others go to the login."""

import json
import re
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from chat.models import ChatMessage, Conversation
from chat.tools import TOOLS
from common.clock import SEOUL
from metrics.tests.dataset import build_dataset
from metrics.tests.test_selectors import DAY1, EXPECTED, OVERALL
from orders.models import Customer

pytestmark = pytest.mark.django_db

URL = "/admin/metrics/"
CHART = '<svg xmlns="http://www.w3.org/2000/svg" class="metrics-chart '  # not the admin's own icon sprites


def _dashboard_viewer(username: str) -> object:
    user = get_user_model().objects.create_user(username, password="pw-12345678", is_staff=True)
    user.user_permissions.add(Permission.objects.get(content_type__app_label="metrics", codename="view_dashboard"))
    return user


@pytest.fixture
def staff(db):
    """Staff who may read the dashboard (metrics.view_dashboard)."""
    return _dashboard_viewer("metrics-viewer")


def test_the_url_is_mounted_under_admin():
    assert reverse("metrics:dashboard") == URL


def test_staff_see_the_dashboard_with_svg_charts(client, staff):
    build_dataset()
    client.force_login(staff)
    response = client.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert page.count(CHART) == 11  # eight, and first replies, SLA attainment, refund deadlines
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
    response = client.get(URL, {"format": "json", "since": "", "until": ""})  # both ends open: every day
    assert response["Content-Type"] == "application/json"
    report = json.loads(response.content)
    # The report, plus the low ratings for the team (the same list the page shows).
    assert [(row["score"], row["label"]) for row in report.pop("low_csat")] == [(2, "배송"), (1, "오류")]
    assert report == EXPECTED


def test_reversed_dates_show_an_error_instead_of_a_report(client, staff):
    client.force_login(staff)
    response = client.get(URL, {"since": "2026-07-27", "until": "2026-07-26"})
    assert response.status_code == 200
    assert response.context["report"] is None
    assert "시작일이 종료일보다 늦습니다." in response.content.decode()


def test_empty_database_collapses_every_chart_and_table_into_one_line(client, staff):
    client.force_login(staff)
    page = client.get(URL).content.decode()
    assert CHART not in page and "<figure" not in page  # no empty frames
    lines = re.findall(r'<p class="metrics-empty" id="[^"]+">([^<]*)</p>', page)
    assert lines == [  # eleven charts, then eight tables, one line each
        f"이 기간에 {what} 데이터가 없습니다."
        for what in (
            "초안 지연",
            "운영자 결정",
            "분류별 반려율",
            "생성 실패·재시도·데드레터",
            "환불·취소 결정",
            "도구 호출",
            "거절 사유",
            "채팅 응답·상담 이관",
            "첫 답변",
            "SLA",
            "승인된 환불",
            "초안 결정",
            "환불·취소 요청",
            "도구 호출",
            "거절 사유",
            "채팅 응답·상담 이관",
            "고객 평가",
            "낮은 평가(2점 이하)",
            "일별 활동",
        )
    ]
    assert "<table" not in page  # not a table of zeros


def test_a_range_with_some_data_draws_those_charts_and_collapses_the_rest(client, staff):
    build_dataset()
    ChatMessage.objects.all().delete()  # no chat in the range any more (tool calls go with their messages)
    client.force_login(staff)
    page = client.get(URL).content.decode()
    assert 'id="chart-decisions"' in page and 'id="chart-tool_calls"' not in page
    assert '<p class="metrics-empty" id="empty-tool_calls">이 기간에 도구 호출 데이터가 없습니다.</p>' in page
    assert 'id="empty-table-tools"' in page and 'id="table-tools"' not in page
    assert 'id="empty-decisions"' not in page


def test_tools_read_by_their_korean_names(client, staff):
    build_dataset()
    client.force_login(staff)
    page = client.get(URL).content.decode()
    visible = re.sub(r'title="[^"]*"|href="[^"]*"|<title>[^<]*</title>|data-[a-z]+="[^"]*"', " ", page)
    visible = re.sub(r"<[^>]*>", " ", visible)
    assert "주문 조회" in visible and "환불 요청" in visible and "배송지 변경" in visible
    for name in TOOLS:
        assert name not in visible
    assert '<td title="request_refund">환불 요청</td>' in page


# --- the default range: one clock for the demo world ---------------------------------------------------------


def test_without_a_range_the_dashboard_shows_the_two_weeks_up_to_today(client, staff):
    build_dataset()  # 2026-07-26 and 27; CS_TODAY is 2026-07-27
    client.force_login(staff)
    response = client.get(URL)
    report = response.context["report"]
    assert (report["range"]["since"], report["range"]["until"]) == ("2026-07-14", "2026-07-27")
    assert report["overall"] == OVERALL and len(report["days"]) == 14
    page = response.content.decode()
    assert "기본 기간 2026년 7월 14일 ~ 2026년 7월 27일 (14일): 기준일(2026년 7월 27일)까지 14일을 보여 줍니다." in page
    assert 'value="2026-07-14"' in page and 'value="2026-07-27"' in page
    assert json.loads(client.get(URL, {"format": "json"}).content)["range"]["since"] == "2026-07-14"


def test_chats_stamped_months_after_cs_today_move_the_default_to_the_latest_activity(client, staff):
    build_dataset()
    late = datetime(2026, 12, 1, 10, 0, tzinfo=SEOUL)  # a chat stamped by the machine clock
    conversation = Conversation.objects.create(customer=Customer.objects.first())
    reply = ChatMessage.objects.create(conversation=conversation, role="assistant", content="안내드립니다")
    ChatMessage.objects.filter(pk=reply.pk).update(created_at=late)
    client.force_login(staff)
    response = client.get(URL)
    report = response.context["report"]
    # The recent window, not July → December with 120 empty days between the two clusters.
    assert (report["range"]["since"], report["range"]["until"]) == ("2026-11-18", "2026-12-01")
    assert report["overall"]["chat"]["turns"] == 1 and report["overall"]["drafts"]["created"] == 0
    page = response.content.decode()
    assert (
        "활동이 기록된 마지막 날(2026년 12월 1일)이 기준일(2026년 7월 27일)보다 늦어, "
        "마지막 활동일까지 14일을 보여 줍니다." in page
    )
    assert "이 기간 앞에도 기록이 있습니다(2026년 7월 26일부터)." in page
    # The demo's own days are one click away, and every day is too.
    assert 'href="?since=2026-07-14&amp;until=2026-07-27"' in page and 'href="?since=&amp;until="' in page
    july = client.get(URL, {"since": "2026-07-14", "until": "2026-07-27"}).context["report"]
    assert july["overall"] == OVERALL


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


def test_staff_without_the_dashboard_permission_get_403_for_the_page_and_the_json(client):
    build_dataset()
    bare = get_user_model().objects.create_user("staff-bare", password="pw-12345678", is_staff=True)
    client.force_login(bare)

    page = client.get(URL)
    as_json = client.get(URL, {"format": "json", "since": "2026-07-14", "until": "2026-07-27"})

    assert page.status_code == 403 and CHART not in page.content.decode()
    assert as_json.status_code == 403
    assert as_json.json() == {"code": "permission_denied", "detail": "운영 지표를 볼 권한이 없습니다."}
    index = client.get("/admin/").content.decode()
    assert f'href="{URL}"' not in index  # no link to a page that would refuse them


def test_the_demo_operator_may_read_the_dashboard(client, shop):
    client.force_login(get_user_model().objects.get(username="operator"))
    assert client.get(URL).status_code == 200
    assert client.get(URL, {"format": "json"}).status_code == 200
    assert f'href="{URL}"' in client.get("/admin/").content.decode()

"""Django's generated admin titles read naturally in Korean: no "보기위한 1… 를(을) 선택", no "뷰 …"."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from actions.tests.factories import defect_refund

pytestmark = pytest.mark.django_db


def test_view_only_titles_read_naturally(client, shop):
    record = defect_refund("하자")
    client.force_login(get_user_model().objects.get(username="operator"))
    listing = client.get(reverse("admin:actions_actionrecord_changelist") + "?status__exact=PENDING").content.decode()
    detail = client.get(reverse("admin:actions_actionrecord_change", args=[record.pk])).content.decode()
    for page in (listing, detail):
        assert "보기위한" not in page and "를(을) 선택" not in page and "뷰 처리 기록" not in page
    assert "<title>승인 대기열 | CS 데스크</title>" in listing and "처리 기록 보기" in detail
    everything = client.get(reverse("admin:actions_actionrecord_changelist") + "?status__exact=DONE").content.decode()
    assert "<title>처리 기록 | CS 데스크</title>" in everything


def test_an_english_browser_still_gets_the_korean_desk(client, c003_api):
    """LANGUAGES holds Korean only: LocaleMiddleware cannot switch Django's own words (the admin's, DRF's) to
    the browser's English."""
    login = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert "사용자 이름" in login and "Username" not in login
    refused = c003_api.post("/api/tickets/", {}, format="json", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").json()
    assert refused["errors"]["body"] == ["이 필드는 필수 항목입니다."]

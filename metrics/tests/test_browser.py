"""The dashboard in a real headless Chromium (Debian's package, driven by Playwright) against a live server.

Logs in through the admin login form as staff, opens /admin/metrics/, checks that the charts were laid out
with visible bars and points, and saves a screenshot to test-artifacts/metrics-dashboard.png.
Outside CI a machine without Chromium or Playwright skips this test; under CI=true that is a failure.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from metrics.tests.dataset import build_dataset
from web.tests.browser import chromium

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SCREENSHOT = settings.BASE_DIR / "test-artifacts" / "metrics-dashboard.png"


def test_dashboard_charts_render_in_headless_chromium(live_server):
    # All database work happens before the browser starts: Playwright's sync API runs an event loop,
    # and Django refuses ORM calls while one is running in this thread.
    build_dataset()
    browser_user = get_user_model().objects.create_user("metrics-browser", password="pw-12345678", is_staff=True)
    browser_user.user_permissions.add(Permission.objects.get(codename="view_dashboard"))
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)

    with chromium() as (browser, _expect):
        page = browser.new_page(viewport={"width": 1440, "height": 900}, locale="ko-KR")
        external: list[str] = []
        page.on("request", lambda r: None if r.url.startswith(live_server.url) else external.append(r.url))

        page.goto(f"{live_server.url}/admin/metrics/")
        assert "/admin/login/" in page.url  # not logged in yet: the admin login, not the dashboard
        page.fill("#id_username", "metrics-browser")
        page.fill("#id_password", "pw-12345678")
        page.click("input[type=submit]")
        page.wait_for_url(f"{live_server.url}/admin/metrics/")
        assert page.locator("h1").first.inner_text() == "운영 지표"

        charts = page.locator("svg.metrics-chart")
        assert charts.count() == 11  # eight, and first replies, SLA attainment, refund deadlines
        assert page.locator("svg.metrics-chart.empty").count() == 0
        for i in range(charts.count()):
            box = charts.nth(i).bounding_box()
            assert box and box["width"] > 200 and box["height"] > 50

        # Bars with a value must be laid out with a real size; the decisions chart has exactly four.
        sizes = page.eval_on_selector_all(
            "svg.metrics-chart rect.bar",
            "els => els.map(e => { const b = e.getBoundingClientRect();"
            " return [e.closest('figure').id, Number(e.dataset.value), b.width, b.height]; })",
        )
        visible = [s for s in sizes if s[1] > 0]
        assert visible and all(width > 0 and height > 0 for _, _, width, height in visible)
        assert len([s for s in visible if s[0] == "chart-decisions"]) == 4
        points = page.locator("#chart-latency circle.point")
        assert points.count() == 8
        assert all((points.nth(i).bounding_box() or {}).get("width", 0) > 0 for i in range(points.count()))

        page.screenshot(path=str(SCREENSHOT), full_page=True)
        assert external == []  # everything came from our server: no CDN, no internet
    assert SCREENSHOT.stat().st_size > 10_000

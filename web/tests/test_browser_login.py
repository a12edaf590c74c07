"""The chat page with expiring tokens, in a real headless Chromium against a live server: log in, an expired
token brings back the login form with the re-login message, logging out revokes the token on the server, a
locked login says so.

Database work runs in a helper thread: Playwright's sync API runs an event loop in this one, where Django
refuses ORM calls. Skipped without Chromium or Playwright outside CI (as metrics/tests/test_browser.py)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import AuthToken
from testsupport.browser import CHROMIUM, CHROMIUM_ARGS, browser_require

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _in_thread(fn):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def _tokens() -> int:
    return _in_thread(lambda: AuthToken.objects.filter(user__username="c003").count())


def _expire_all() -> None:
    _in_thread(lambda: AuthToken.objects.update(created_at=timezone.now() - timedelta(hours=13)))


def test_chat_page_relogin_after_expiry_and_logout_revokes(live_server, shop):
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        sync_playwright = None
    browser_require("the playwright package", sync_playwright is not None)
    browser_require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(locale="ko-KR")
            page.goto(f"{live_server.url}/")

            def log_in():
                page.fill("#login-username", "c003")
                page.fill("#login-password", "demo1234")
                # The app view loads the sidebar right after login: wait for that too, so the next
                # /api/orders/ response awaited below is the one the test triggers.
                with page.expect_response("**/api/orders/") as sidebar:
                    with page.expect_response("**/api/auth/token/") as login:
                        page.click("#login-button")
                assert login.value.status == 200 and sidebar.value.status == 200
                expect(page.locator("#app-view")).to_be_visible()

            log_in()
            assert _tokens() == 1

            _expire_all()
            with page.expect_response("**/api/orders/") as orders:
                page.click("#refresh-button")
            assert orders.value.status == 401
            expect(page.locator("#login-view")).to_be_visible()
            expect(page.locator("#login-error")).to_have_text("로그인이 만료되었습니다. 다시 로그인해 주세요.")
            assert _tokens() == 0  # the expired token was deleted when it was refused

            log_in()
            assert _tokens() == 1
            with page.expect_response("**/api/auth/logout/") as logout:
                page.click("#logout-button")
            assert logout.value.status == 204
            expect(page.locator("#login-view")).to_be_visible()
            assert _tokens() == 0

            # Five wrong passwords lock the name: the form says for how long.
            for attempt in range(5):
                page.fill("#login-username", "c003")
                page.fill("#login-password", f"wrong-{attempt}")
                with page.expect_response("**/api/auth/token/") as failed:
                    page.click("#login-button")
            assert failed.value.status == 429
            expect(page.locator("#login-error")).to_contain_text("로그인 시도가 너무 많아")
        finally:
            browser.close()

"""The widget in a real headless Chromium: a shop page on an allowed origin opens the chat frame and is signed
in; the same page served from another origin is refused by the frame's CSP frame-ancestors.

Database work runs in a helper thread (Playwright's sync API runs an event loop in this one). Skipped without
Chromium or Playwright outside CI (as web/tests/test_browser_login.py)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from accounts.models import AuthToken
from integration import policy
from integration.tests.factories import CUSTOMER_ID, make_integration, seed_shop
from web.tests.browser import chromium, in_thread

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


class ShopPage:
    """A shop's page on its own origin, embedding the widget with a freshly signed session per request."""

    def __init__(self, desk_url: str, secret: str) -> None:
        page = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                expires_at = int(time.time()) + 300
                signature = policy.session_signature(secret, CUSTOMER_ID, expires_at)
                html = (
                    "<!doctype html><html><body><h1>My shop</h1>"
                    f'<script src="{desk_url}/widget.js" data-integration="myshop" data-customer-id="{CUSTOMER_ID}" '
                    f'data-expires-at="{expires_at}" data-signature="{signature}"></script></body></html>'
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(html)))
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        page.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_widget_opens_on_an_allowed_origin_and_is_refused_on_another(live_server):
    issued = make_integration()
    seed_shop(issued)
    allowed = ShopPage(live_server.url, issued.signing_secret)
    refused = ShopPage(live_server.url, issued.signing_secret)
    type(issued.integration).objects.filter(pk=issued.integration.pk).update(allowed_origins=[allowed.url.rstrip("/")])
    try:
        with chromium() as (browser, expect):
            page = browser.new_page()
            page.goto(allowed.url)
            page.click("#cs-desk-launcher")
            frame = page.frame_locator("#cs-desk-frame")
            expect(frame.locator("#status")).to_have_attribute("data-state", "ready", timeout=20_000)
            assert in_thread(lambda: AuthToken.objects.count()) == 1

            other = browser.new_page()
            other.goto(refused.url)
            other.click("#cs-desk-launcher")
            other.wait_for_selector("#cs-desk-frame", state="attached")
            time.sleep(2)
            child = [f for f in other.frames if f != other.main_frame]
            assert child and not child[0].url.startswith(live_server.url)  # blocked: Chromium's error page
            assert other.frame_locator("#cs-desk-frame").locator("#status").count() == 0
            assert in_thread(lambda: AuthToken.objects.count()) == 1  # the refused page signed nobody in
    finally:
        allowed.stop()
        refused.stop()

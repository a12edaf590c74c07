"""What the browser tests share: the headless Chromium they drive, the viewports, where screenshots and axe-core
results go, and the ways into the pages (a customer's chat page, an operator's admin page).

Database work runs in a helper thread (`in_thread`): Playwright's sync API runs an event loop in the test's
thread, where Django refuses ORM calls. Without Chromium, Playwright or axe-core a test is skipped, except in CI
(CI=true), where it fails."""

from __future__ import annotations

import json
import os
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from django.conf import settings

# The same Chromium, with the same flags, as the live-lists benchmark drives; skipped without it (failed in CI).
from testsupport.browser import CHROMIUM, CHROMIUM_ARGS
from testsupport.browser import browser_require as require

ARTIFACTS = settings.BASE_DIR / "test-artifacts"
AXE = settings.BASE_DIR / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("critical", "serious")  # the axe-core impacts a page must not have
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def in_thread(fn):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def playwright():
    """Playwright's `sync_playwright` and `expect`, once Playwright and Chromium are known to be there."""
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        sync_playwright = expect = None
    require("the playwright package", sync_playwright is not None)
    require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return sync_playwright, expect


@contextmanager
def chromium():
    """A headless Chromium and Playwright's `expect` for the block; the browser is closed after it."""
    sync_playwright, expect = playwright()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser, expect
        finally:
            browser.close()


def axe(page, name: str) -> list[dict]:
    """axe-core's violations on a page (or a frame), all written to test-artifacts/a11y-<name>.json; returns the
    critical and serious ones."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    violations = [
        {"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:10]}
        for v in result["violations"]
    ]
    (ARTIFACTS / f"a11y-{name}.json").write_text(json.dumps(violations, ensure_ascii=False, indent=2))
    return [v for v in violations if v["impact"] in BLOCKING]


def admin_page(browser, base_url: str, path: str, *, username: str = "operator", size: dict | None = None):
    """A staff member signed in to the admin, on `path`."""
    page = browser.new_context(viewport=size or {"width": 1280, "height": 900}, locale="ko-KR").new_page()
    return admin_sign_in(page, base_url, path, username=username)


def admin_sign_in(page, base_url: str, path: str, *, username: str = "operator"):
    """Signs `page` in to the admin through its login form and waits for `path`."""
    page.goto(f"{base_url}/admin/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", "demo1234")
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}{path}")
    return page


def customer_page(browser, base_url: str, size: dict, username: str = "c003"):
    """The chat page, signing in as a demo customer (the answer to the login is not waited for)."""
    page = browser.new_context(viewport=size, locale="ko-KR").new_page()
    page.goto(f"{base_url}/")
    page.fill("#login-username", username)
    page.fill("#login-password", "demo1234")
    page.click("#login-button")
    return page


def _customer_token(customer_id: str = "C003") -> str:
    """A fresh API token of a demo customer, as the chat page holds one."""

    def issue():
        from accounts.services import token_issue
        from orders.models import Customer

        user = Customer.objects.select_related("user").get(pk=customer_id).user
        return token_issue(user=user, actor=user)[1]

    return in_thread(issue)


def refund_requested(order_id: str = "HR20260721001", *, reason: str = "밑창이 떨어졌어요"):
    """C003's refund request on one of their orders, pending approval (call it through `in_thread` in a browser
    test)."""
    from actions.services import refund_request
    from common.actors import Actor
    from orders.models import Customer

    c003 = Customer.objects.get(pk="C003")
    return refund_request(
        customer=c003, order_id=order_id, reason=reason, reason_category="DEFECT", actor=Actor.customer_agent(c003)
    ).record


def api_inquiry(base_url: str, subject: str, *, token: str | None = None) -> str:
    """C003's inquiry, POSTed to /api/tickets/ as the chat page sends one; returns the new ticket's number."""
    request = urllib.request.Request(
        f"{base_url}/api/tickets/",
        data=json.dumps({"category": "DELIVERY", "subject": subject, "body": f"{subject} 언제 와요?"}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Token {token or _customer_token()}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        return json.loads(response.read())["ticket_id"]


def inquiry_opened(subject: str = "배송 문의"):
    """C003's inquiry, opened as the API opens one (call it through `in_thread` in a browser test)."""
    from orders.models import Customer
    from tickets.services import ticket_create

    c003 = Customer.objects.select_related("user").get(pk="C003")
    return ticket_create(
        customer=c003, category="DELIVERY", subject=subject, body="언제 와요?", source="API", author=c003.user
    )

"""Lists that update themselves, in a real headless Chromium against a live server (the embedded default: no
Redis), with the page's own polling interval: a customer's inquiry sent through the API appears in the open
ticket list within 5 s; while the operator is working in the list (a selected row, a half-typed search) it
waits behind "새 항목 N건 — 새로고침", which applies without losing either; a new refund request appears in the
open approval queue, and the admin index's count changes in place, within 5 s. The polling pauses in a hidden
tab and backs off on errors. Bulk approval goes through its confirmation. Screenshots go to test-artifacts/.

Database work runs in a helper thread (Playwright's sync API runs an event loop in this one, where Django
refuses ORM calls). Skipped without Chromium or Playwright outside CI (as web/tests/test_browser_login.py)."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings as django_settings

from testsupport.browser import CHROMIUM, CHROMIUM_ARGS, browser_require

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ARTIFACTS = django_settings.BASE_DIR / "test-artifacts"
WITHIN_MS = 5000


@pytest.fixture(autouse=True)
def _no_drafts(settings):
    """The inquiry's reply draft is not what these tests watch: without it the API answers right after the
    commit, so the clock starts where the change does."""
    settings.CS_AI_DRAFTS_ENABLED = False


def _in_thread(fn):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def _playwright():
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        sync_playwright = expect = None
    browser_require("the playwright package", sync_playwright is not None)
    browser_require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return sync_playwright, expect


def _customer_token(customer_id: str = "C003") -> str:
    def issue():
        from accounts.services import token_issue
        from orders.models import Customer

        user = Customer.objects.select_related("user").get(pk=customer_id).user
        return token_issue(user=user, actor=user)[1]

    return _in_thread(issue)


def _inquiry_through_the_api(base_url: str, token: str, subject: str) -> str:
    """POST /api/tickets/ as the customer's chat page does; returns the new ticket's number."""
    request = urllib.request.Request(
        f"{base_url}/api/tickets/",
        data=json.dumps({"category": "DELIVERY", "subject": subject, "body": f"{subject} 언제 와요?"}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        return json.loads(response.read())["ticket_id"]


def _refund(order_id: str) -> tuple[int, str]:
    def make():
        from actions.services import refund_request
        from common.actors import Actor
        from orders.models import Customer

        c003 = Customer.objects.get(pk="C003")
        record = refund_request(
            customer=c003,
            order_id=order_id,
            reason="밑창이 떨어졌어요",
            reason_category="DEFECT",
            actor=Actor.customer_agent(c003),
        ).record
        return record.pk, record.number

    return _in_thread(make)


def _statuses() -> dict[int, str]:
    from actions.models import ActionRecord

    return _in_thread(lambda: dict(ActionRecord.objects.values_list("pk", "status")))


def _operator_page(browser, base_url: str, path: str):
    page = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR").new_page()
    page.goto(f"{base_url}/admin/login/?next={path}")
    page.fill("#id_username", "operator")
    page.fill("#id_password", "demo1234")
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}{path}")
    page.mouse.move(2, 2)  # away from the list: an idle operator
    page.evaluate("window.__notReloaded = true")
    return page


def _seen_within(expect, locator, text: str, started: float) -> float:
    expect(locator).to_contain_text(text, timeout=WITHIN_MS)
    elapsed = time.monotonic() - started
    assert elapsed < WITHIN_MS / 1000, f"{text} after {elapsed:.1f} s"
    return elapsed


def test_a_new_inquiry_appears_in_the_open_ticket_list_and_waits_while_the_operator_works(live_server, shop):
    sync_playwright, expect = _playwright()
    token = _customer_token()
    path = "/admin/tickets/ticket/?status__exact=OPEN"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = _operator_page(browser, live_server.url, path)
            rows = page.locator("#result_list")

            # 1. Idle operator: the row is put in by itself, no reload.
            started = time.monotonic()
            first = _inquiry_through_the_api(live_server.url, token, "운동화 배송")
            _seen_within(expect, rows, first, started)
            assert page.evaluate("window.__notReloaded") is True
            expect(page.locator(f"#result_list tr.cs-live-new:has-text('{first}')")).to_have_count(1)
            page.screenshot(path=str(ARTIFACTS / "live-ticket-list-new-row.png"), full_page=True)

            # 2. Working operator: a row chosen and a search half typed. The next inquiry waits behind the button.
            first_box = page.locator(f"#result_list tr:has-text('{first}') input.action-select")
            first_box.check()
            page.fill("#searchbar", "운동")
            started = time.monotonic()
            second = _inquiry_through_the_api(live_server.url, token, "가방 배송")
            expect(page.locator("#cs-live-apply")).to_have_text("새 항목 1건 — 새로고침", timeout=WITHIN_MS)
            assert time.monotonic() - started < WITHIN_MS / 1000
            expect(rows).not_to_contain_text(second)  # nothing moved under the operator's hand
            page.screenshot(path=str(ARTIFACTS / "live-ticket-list-banner.png"), full_page=True)

            page.click("#cs-live-apply")
            expect(rows).to_contain_text(second)
            expect(page.locator("#cs-live-banner")).to_be_hidden()
            expect(first_box).to_be_checked()  # the selection survived
            expect(page.locator(f"#result_list tr:has-text('{second}') input.action-select")).not_to_be_checked()
            assert page.input_value("#searchbar") == "운동"  # the half-typed search too
            assert page.url == f"{live_server.url}{path}"  # and the filter
            assert page.evaluate("window.__notReloaded") is True
            expect(page.locator("#cs-live-status")).to_have_text("새 항목 1건이 목록에 추가되었습니다.")
        finally:
            browser.close()


def test_a_new_request_appears_in_the_open_approval_queue_and_the_index_count_changes_in_place(live_server, shop):
    sync_playwright, expect = _playwright()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            index = _operator_page(browser, live_server.url, "/admin/")
            queue = _operator_page(browser, live_server.url, "/admin/actions/actionrecord/?status__exact=PENDING")
            expect(index.locator("#approval-queue-count")).to_have_text("0건")

            started = time.monotonic()
            _, number = _refund("HR20260721001")
            _seen_within(expect, queue.locator("#result_list"), number, started)
            expect(index.locator("#approval-queue-count")).to_have_text("1건", timeout=WITHIN_MS)
            assert time.monotonic() - started < WITHIN_MS / 1000
            assert queue.evaluate("window.__notReloaded") and index.evaluate("window.__notReloaded")
            queue.screenshot(path=str(ARTIFACTS / "live-approval-queue.png"), full_page=True)
            index.screenshot(path=str(ARTIFACTS / "live-index-count.png"), full_page=True)

            started = time.monotonic()
            _refund("HR20260726002")
            expect(index.locator("#approval-queue-count")).to_have_text("2건", timeout=WITHIN_MS)
            assert time.monotonic() - started < WITHIN_MS / 1000
            expect(index.locator("#failed-execution-row")).to_be_hidden()
        finally:
            browser.close()


def test_polling_pauses_in_a_hidden_tab_and_backs_off_on_errors(live_server, shop):
    sync_playwright, expect = _playwright()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(locale="ko-KR")
            context.add_init_script("window.CSDESK_LIVE_MS = 250;")
            page = context.new_page()
            asked: list[float] = []
            page.on("request", lambda r: asked.append(time.monotonic()) if "/admin/live/" in r.url else None)
            page.goto(f"{live_server.url}/admin/login/?next=/admin/")
            page.fill("#id_username", "operator")
            page.fill("#id_password", "demo1234")
            page.click("input[type=submit]")
            page.wait_for_url(f"{live_server.url}/admin/")

            page.wait_for_timeout(1500)
            assert len(asked) >= 3  # visible: every 250 ms

            page.evaluate(
                "() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});"
                " document.dispatchEvent(new Event('visibilitychange')); }"
            )
            page.wait_for_timeout(300)  # one question may have been on its way
            hidden_from = len(asked)
            page.wait_for_timeout(1500)
            assert len(asked) == hidden_from  # hidden: not one question

            page.route("**/admin/live/**", lambda route: route.fulfill(status=500, body="{}"))
            errors_from = len(asked)
            page.evaluate(
                "() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});"
                " document.dispatchEvent(new Event('visibilitychange')); }"
            )
            page.wait_for_timeout(4000)
            gaps = [b - a for a, b in zip(asked[errors_from:], asked[errors_from + 1 :], strict=False)]
            # 0, then 500, 1000, 2000 ms apart: 4 questions in 4 s instead of 16.
            assert 2 <= len(asked) - errors_from <= 5, gaps
            assert all(later > earlier * 1.5 for earlier, later in zip(gaps, gaps[1:], strict=False)), gaps
        finally:
            browser.close()


def test_bulk_approve_shows_each_order_amount_and_the_total_and_approves_only_after_confirming(live_server, shop):
    sync_playwright, expect = _playwright()
    first = _refund("HR20260721001")
    second = _refund("HR20260726002")

    def amounts():
        from actions.models import ActionRecord
        from common.display import won

        records = ActionRecord.objects.select_related("order").filter(pk__in=[first[0], second[0]]).order_by("id")
        values = [r.refund_amount if r.refund_amount is not None else r.order.amount for r in records]
        return [(r.order_id, won(v)) for r, v in zip(records, values, strict=True)], won(sum(values))

    rows, total = _in_thread(amounts)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = _operator_page(browser, live_server.url, "/admin/actions/actionrecord/?status__exact=PENDING")
            for pk, _ in (first, second):
                page.check(f"#result_list input.action-select[value='{pk}']")
            page.select_option("select[name=action]", "approve_selected")
            page.click("button[name=index]")

            confirm = page.locator("#cs-bulk-records")
            expect(confirm).to_be_visible()
            for (pk, number), (order_id, amount) in zip((first, second), rows, strict=True):
                row = page.locator(f"#cs-bulk-{pk}")
                expect(row).to_contain_text(number)
                expect(row).to_contain_text(order_id)
                expect(row).to_contain_text(amount)
                expect(row).to_contain_text("상품하자 · 밑창이 떨어졌어요")
            expect(page.locator("#cs-bulk-total")).to_have_text(total)
            expect(page.locator("#cs-bulk-confirm-button")).to_have_text(f"2건 · 합계 {total} 승인")
            page.screenshot(path=str(ARTIFACTS / "bulk-approve-confirm.png"), full_page=True)
            assert _statuses() == {first[0]: "PENDING", second[0]: "PENDING"}  # nothing decided by the first click

            page.click("#cs-bulk-confirm-button")
            expect(page.locator(".messagelist")).to_contain_text(f"2건을 승인했습니다: {first[1]}, {second[1]}")
            assert _statuses() == {first[0]: "APPROVED", second[0]: "APPROVED"}
        finally:
            browser.close()

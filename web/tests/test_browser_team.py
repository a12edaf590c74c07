"""Two operators on one desk, in two browser contexts of a real headless Chromium against a live server (the
embedded default: no Redis, presence in the database):

1. 김상담 (operator) takes a new ticket with "내가 맡기"; 박팀장 (supervisor), opening it, sees 김상담 as 담당자
   and that 김상담 has it open.
2. Both have the reply box open. 김상담 answers first; 박팀장, who has not reloaded, sends their own text and
   is told who answered first, with their text still in the box and 김상담's reply in the conversation. Nothing
   of 박팀장's is sent.
3. A customer's new inquiry appears in 박팀장's open ticket list within 5 s, with no reload.

Screenshots go to test-artifacts/team-*.png. Database work runs in a helper thread (Playwright's sync API runs
an event loop in this one, where Django refuses ORM calls). Skipped without Chromium or Playwright outside CI."""

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
A_TEXT = "김상담입니다. 운동화는 내일 출고됩니다."
B_TEXT = "박팀장입니다. 확인해 보고 연락드릴게요."


@pytest.fixture(autouse=True)
def _quiet(settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the operators' own replies are what these tests watch
    settings.CS_PRESENCE_TTL_S = 30


def _db(fn):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def _inquiry(base: str, subject: str) -> str:
    """A customer's inquiry through the public API, as the chat page sends it; returns the ticket number."""

    def token():
        from accounts.services import token_issue
        from orders.models import Customer

        user = Customer.objects.select_related("user").get(pk="C003").user
        return token_issue(user=user, actor=user)[1]

    body = json.dumps({"category": "배송", "subject": subject, "body": f"{subject} 언제 오나요?"}).encode()
    request = urllib.request.Request(
        f"{base}/api/tickets/",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Token {_db(token)}"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["ticket_id"]


def _login(browser, base: str, username: str):
    page = browser.new_context(viewport={"width": 1280, "height": 800}, locale="ko-KR").new_page()
    page.goto(f"{base}/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", "demo1234")
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")
    return page


def _ticket_pk(number: str) -> int:
    from tickets.models import Ticket

    return _db(lambda: Ticket.objects.get(pk=int(number[1:])).pk)


def test_two_operators_on_one_ticket_and_a_list_that_updates_itself(live_server, shop):
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        sync_playwright = expect = None
    browser_require("the playwright package", sync_playwright is not None)
    browser_require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    base = live_server.url
    number = _inquiry(base, "운동화 배송")
    change = f"{base}/admin/tickets/ticket/{_ticket_pk(number)}/change/"

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            a = _login(browser, base, "operator")
            b = _login(browser, base, "supervisor")

            # 1. A takes the ticket; B sees A as the assignee and A's presence.
            a.goto(change)
            a.click("#cs-take")
            expect(a.locator("#cs-assignee")).to_contain_text("operator")
            b.goto(change)
            expect(b.locator("#cs-assignee")).to_contain_text("operator")
            expect(b.locator("#cs-presence")).to_be_visible()
            expect(b.locator("#cs-presence")).to_contain_text("김상담")
            b.screenshot(path=str(ARTIFACTS / "team-1-b-sees-a.png"), full_page=False)
            # The reply box is on screen at 1280×800 without scrolling.
            box = b.locator("#cs-reply-body").bounding_box()
            assert box is not None and box["y"] + box["height"] <= 800, box

            # 2. Both write; A sends first; B, without reloading, is told and keeps the text.
            b.fill("#cs-reply-body", B_TEXT)
            a.goto(change)
            a.fill("#cs-reply-body", A_TEXT)
            a.click("#cs-reply-send")
            expect(a.locator(".messagelist")).to_contain_text("답변을 보냈습니다")
            b.click("#cs-reply-send")
            expect(b.locator(".messagelist")).to_contain_text("김상담님이")
            expect(b.locator("#cs-reply-body")).to_have_value(B_TEXT)
            expect(b.locator("#cs-conversation")).to_contain_text(A_TEXT)
            b.screenshot(path=str(ARTIFACTS / "team-2-b-conflict.png"), full_page=False)

            def sent():
                from tickets.models import TicketMessage

                return list(
                    TicketMessage.objects.filter(ticket_id=_ticket_pk(number), author_type="OPERATOR").values_list(
                        "body", flat=True
                    )
                )

            assert _db(sent) == [A_TEXT]

            # 3. A customer's new inquiry appears in B's open list within 5 s.
            b.goto(f"{base}/admin/tickets/ticket/")
            b.wait_for_selector("#result_list")
            time.sleep(0.5)  # the page's own first poll has its token
            started = time.monotonic()
            newest = _inquiry(base, "텀블러 녹 문의")
            expect(b.locator("#result_list")).to_contain_text(newest, timeout=WITHIN_MS)
            elapsed_ms = (time.monotonic() - started) * 1000
            assert elapsed_ms <= WITHIN_MS, elapsed_ms
            b.screenshot(path=str(ARTIFACTS / "team-3-b-list.png"), full_page=False)
        finally:
            browser.close()

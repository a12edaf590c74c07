"""Acceptance 1 of issue 13 in a real headless Chromium against a live server, at a desktop and a phone
viewport: a customer asks for a person in the chat page; the operator rejects the AI draft and writes an own
reply in the admin; the customer sees the reply in the chat log (live polling), opens the thread, reads the reply
and answers it; the operator sees the answer. No sideways scrolling on either page. Screenshots go to
test-artifacts/.

Database work runs in a helper thread (Playwright's sync API runs an event loop in this one, where Django
refuses ORM calls). Skipped without Chromium or Playwright outside CI (as metrics/tests/test_browser.py)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings

from drafts.models import Draft
from testsupport.browser import CHROMIUM, CHROMIUM_ARGS, browser_require
from tickets.models import Ticket, TicketMessage

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ARTIFACTS = settings.BASE_DIR / "test-artifacts"
OWN_REPLY = "고객님, 확인해 보니 교환 접수가 가능합니다. 사진을 보내 주시면 바로 진행하겠습니다."
CUSTOMER_ANSWER = "사진 보내 드릴게요. 감사합니다!"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _in_thread(fn):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


WIDER_THAN_THE_PAGE = """() => { const w = document.documentElement.clientWidth; const out = [];
for (const el of document.querySelectorAll('body *')) { const r = el.getBoundingClientRect();
  if (r.right > w + 1 && r.width > 0) out.push(el.tagName + '#' + el.id + '.' + el.className); }
return out.slice(0, 12); }"""


def _no_sideways_scroll(page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    wide = page.evaluate(WIDER_THAN_THE_PAGE) if overflow > 0 else []
    assert overflow <= 0, f"page scrolls sideways by {overflow}px at {page.viewport_size}: {wide}"


@pytest.mark.parametrize("viewport", VIEWPORTS.keys())
def test_customer_and_operator_answer_each_other(live_server, shop, offline_model, viewport):
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        sync_playwright = None
    browser_require("the playwright package", sync_playwright is not None)
    browser_require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = VIEWPORTS[viewport]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            customer = browser.new_context(viewport=size, locale="ko-KR").new_page()
            customer.add_init_script("window.CSDESK_LIVE_MS = 700;")
            customer.goto(f"{live_server.url}/")
            customer.fill("#login-username", "c003")
            customer.fill("#login-password", "demo1234")
            customer.click("#login-button")
            expect(customer.locator("#app-view")).to_be_visible()

            # 1. The customer asks in the chat page; the agent hands over to a person (a ticket, with a draft).
            customer.fill("#message-input", "운동화 밑창이 떨어졌어요. 상담원 연결해 주세요")
            with customer.expect_response("**/api/chat/") as turn:
                customer.click("#send-button")
            assert turn.value.status == 200
            expect(customer.locator("#requests-list .item--ticket")).to_have_count(1)
            ticket = _in_thread(lambda: Ticket.objects.get())
            assert _in_thread(lambda: Draft.objects.filter(ticket=ticket, status="GENERATED").count()) == 1
            _no_sideways_scroll(customer)

            # 2. The operator rejects the draft and writes an own reply in the admin ticket page.
            operator = browser.new_context(viewport=size, locale="ko-KR").new_page()
            operator.goto(f"{live_server.url}/admin/login/?next=/admin/tickets/ticket/{ticket.pk}/change/")
            operator.fill("#id_username", "operator")
            operator.fill("#id_password", "demo1234")
            operator.click("input[type=submit]")
            expect(operator.locator("#cs-decide")).to_be_visible()
            operator.click("#cs-reject")
            expect(operator.locator("#cs-reply")).to_be_visible()
            _no_sideways_scroll(operator)
            operator.fill("#cs-reply-body", OWN_REPLY)
            operator.click("#cs-reply-send")
            expect(operator.locator(".messagelist")).to_contain_text("답변을 보냈습니다")
            operator.screenshot(path=str(ARTIFACTS / f"loop-{viewport}-operator-reply.png"), full_page=True)
            assert _in_thread(lambda: Ticket.objects.get(pk=ticket.pk).status) == "ANSWERED"

            # 3. The customer sees the reply without reloading, in the conversation that handed over (live polling);
            # shown there, it counts as read, so no unread badge is left behind.
            expect(customer.locator("#message-list .msg--operator")).to_contain_text(OWN_REPLY, timeout=15000)
            expect(customer.locator("#inbox-badge")).to_be_hidden()
            customer.screenshot(path=str(ARTIFACTS / f"loop-{viewport}-customer-badge.png"), full_page=True)
            _no_sideways_scroll(customer)

            # 4. ... opens the thread, reads the reply (no system notes) and answers it.
            customer.click("#requests-list .item--ticket")
            expect(customer.locator("#ticket-view")).to_be_visible()
            expect(customer.locator("#ticket-messages")).to_contain_text(OWN_REPLY)
            expect(customer.locator("#ticket-messages")).not_to_contain_text("[채팅 대화 기록]")
            expect(customer.locator("#inbox-badge")).to_be_hidden()
            customer.fill("#ticket-input", CUSTOMER_ANSWER)
            with customer.expect_response(f"**/api/tickets/{ticket.number}/messages/") as answer:
                customer.click("#ticket-send")
            assert answer.value.status == 201
            expect(customer.locator("#ticket-messages .msg--customer").last).to_contain_text(CUSTOMER_ANSWER)
            _no_sideways_scroll(customer)
            customer.screenshot(path=str(ARTIFACTS / f"loop-{viewport}-customer-thread.png"), full_page=True)

            # 5. The operator sees the answer on the ticket, which is back with a person.
            operator.reload()
            expect(operator.locator("#cs-review")).to_contain_text(CUSTOMER_ANSWER)
            last = _in_thread(
                lambda: list(TicketMessage.objects.filter(ticket=ticket).values_list("author_type", "body"))
            )
            assert ("OPERATOR", OWN_REPLY) in last and last[-1] == ("CUSTOMER", CUSTOMER_ANSWER)
            assert _in_thread(lambda: Ticket.objects.get(pk=ticket.pk).status) == "OPEN"
        finally:
            browser.close()


@pytest.mark.parametrize("viewport", VIEWPORTS.keys())
def test_operator_approves_a_refund_from_the_record_page(live_server, shop, viewport):
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        sync_playwright = None
    browser_require("the playwright package", sync_playwright is not None)
    browser_require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))
    from actions.models import ActionRecord
    from actions.services import refund_request
    from common.actors import Actor
    from orders.models import Customer

    def make_request():
        c003 = Customer.objects.get(pk="C003")
        record = refund_request(
            customer=c003,
            order_id="HR20260721001",
            reason="밑창이 떨어졌어요",
            reason_category="DEFECT",
            actor=Actor.customer_agent(c003),
        ).record
        return record.pk, record.number, f"{int(record.refund_amount or record.order.amount):,}원"

    pk, number, amount = _in_thread(make_request)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_context(viewport=VIEWPORTS[viewport], locale="ko-KR").new_page()
            page.goto(f"{live_server.url}/admin/login/?next=/admin/")
            page.fill("#id_username", "operator")
            page.fill("#id_password", "demo1234")
            page.click("input[type=submit]")
            expect(page.locator("#approval-queue-count")).to_have_text("1건")
            page.click("#approval-queue-link a.section")
            expect(page.locator("#result_list")).to_contain_text(number)
            if viewport == "desktop":  # at 390 px Django's change list scrolls its own table sideways
                _no_sideways_scroll(page)
            page.click(f"#result_list a:text('{number}')")
            page.click("#cs-approve")
            expect(page.locator("#cs-confirm-text")).to_contain_text("HR20260721001")
            expect(page.locator("#cs-confirm-text")).to_contain_text(amount)
            _no_sideways_scroll(page)
            page.screenshot(path=str(ARTIFACTS / f"loop-{viewport}-approve-confirm.png"), full_page=True)
            page.click("#cs-confirm-button")
            expect(page.locator(".messagelist")).to_contain_text(f"{number}을(를) 승인했습니다")
            assert _in_thread(lambda: ActionRecord.objects.get(pk=pk).status) == "APPROVED"
        finally:
            browser.close()

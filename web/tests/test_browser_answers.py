"""Answers reach the customer wherever they are, in a real headless Chromium against a live server, at a desktop
and a phone viewport, with the pages' own live interval (/api/live/ every 2 s):

- a widget customer on a shop page of another origin asks for a person; the operator answers in the admin (a
  second browser context); the launcher shows the unread badge within 5 s and the opened widget the answer; the
  shop page is reloaded and the conversation is still there, from the token the first load exchanged; the thread
  in the widget's own 내 문의 takes a rating;
- a chat-page customer's refund request, approved by the operator in the admin, appears in the chat log within 5 s;
- axe-core finds no critical or serious violation on the chat page and in the widget's frame with messages, a
  ticket thread and its rating control shown.

No page scrolls sideways (document scrollWidth ≤ clientWidth, in the frame too). Screenshots and axe results go to
test-artifacts/. Database work runs in a helper thread (Playwright's sync API runs an event loop in this one).
Skipped without Chromium, Playwright or axe-core outside CI (web/tests/browser.py)."""

from __future__ import annotations

import json
import time

import pytest

from web.tests.browser import (
    ARTIFACTS,
    AXE,
    VIEWPORTS,
    admin_page,
    axe,
    chromium,
    customer_page,
    in_thread,
    inquiry_opened,
    require,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.usefixtures("no_ai_drafts")]

WITHIN_S = 5.0
REPLY = "고객님, 확인했습니다. 새 상품으로 바로 보내 드리겠습니다."
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _no_sideways(frame, where: str) -> None:
    """A page or a frame: nothing wider than its viewport."""
    overflow = frame.evaluate(SIDEWAYS)
    assert overflow <= 0, f"{where} scrolls sideways by {overflow}px"


def _widget_frame(page):
    return page.locator("#cs-desk-frame").element_handle().content_frame()


SETTLED = "() => [...document.querySelectorAll('.btn:not(:disabled)')].every(b => getComputedStyle(b).opacity === '1')"


def _axe(frame, name: str) -> list[dict]:
    # A button just enabled again fades back in (0.15 s): measure contrast once it has.
    frame.wait_for_function(SETTLED)
    return axe(frame, name)


def _operator_answers(expect, operator, ticket_pk: int) -> float:
    """The operator's own reply on the ticket page; returns when it was sent (the clock starts at the click)."""
    expect(operator.locator("#cs-reply")).to_be_visible()
    operator.fill("#cs-reply-body", REPLY)
    started = time.monotonic()
    operator.click("#cs-reply-send")
    expect(operator.locator(".messagelist")).to_contain_text("답변을 보냈습니다")
    return started


def _only_ticket() -> tuple[int, str]:
    from tickets.models import Ticket

    def get():
        ticket = Ticket.objects.get()
        return ticket.pk, ticket.number

    return in_thread(get)


@pytest.mark.parametrize("viewport", VIEWPORTS.keys())
def test_the_widget_on_another_origin_gets_the_operators_answer_and_keeps_the_conversation_across_reloads(
    live_server, shop, offline_model, viewport
):
    from accounts.models import AuthToken
    from integration.tests.factories import make_integration, seed_shop
    from integration.tests.test_widget_browser import ShopPage

    size = VIEWPORTS[viewport]
    issued = make_integration()
    seed_shop(issued)
    shop_page = ShopPage(live_server.url, issued.signing_secret)
    assert not live_server.url.startswith(shop_page.url.rstrip("/"))  # another origin: the shop's own
    type(issued.integration).objects.filter(pk=issued.integration.pk).update(
        allowed_origins=[shop_page.url.rstrip("/")]
    )
    try:
        with chromium() as (browser, expect):
            page = browser.new_context(viewport=size, locale="ko-KR").new_page()
            page.goto(shop_page.url)
            page.click("#cs-desk-launcher")
            widget = page.frame_locator("#cs-desk-frame")
            status = widget.locator("#status")
            expect(status).to_have_attribute("data-state", "ready", timeout=20_000)
            expect(status).to_contain_text("AI 상담원이 먼저 답변합니다")
            expect(status).not_to_contain_text("상담원이 연결되었습니다")

            # 1. The customer asks for a person: the handoff card says where the answer will appear.
            widget.locator("#text").fill("상담원 연결해 주세요")
            widget.locator("#send").click()
            card = widget.locator("#log .result-card--ticket")
            expect(card).to_have_count(1, timeout=60_000)
            expect(card).to_contain_text("상담원의 답변은 이 대화와 ‘내 문의’에 표시됩니다")
            ticket_pk, number = _only_ticket()
            _no_sideways(page, "shop page")
            _no_sideways(_widget_frame(page), "widget frame")
            page.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-widget-handoff.png"))

            # 2. The customer closes the widget and browses on; the operator answers in the admin.
            widget.locator("#close").click()
            expect(page.locator("#cs-desk-frame")).to_be_hidden()
            operator = admin_page(browser, live_server.url, f"/admin/tickets/ticket/{ticket_pk}/change/", size=size)
            started = _operator_answers(expect, operator, ticket_pk)

            # 3. The launcher's badge within 5 s; the opened widget shows the answer, from a person.
            expect(page.locator("#cs-desk-count")).to_have_text("1", timeout=WITHIN_S * 1000)
            expect(page.locator("#cs-desk-badge")).to_be_visible()
            badge_after = time.monotonic() - started
            assert badge_after < WITHIN_S, f"badge after {badge_after:.1f} s"
            expect(page.locator("#cs-desk-launcher")).to_have_accessible_name("상담하기 1 건의 새 답변")
            page.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-widget-badge.png"))
            page.click("#cs-desk-launcher")
            answer = widget.locator("#log .msg--operator")
            expect(answer).to_contain_text(REPLY, timeout=WITHIN_S * 1000)
            shown_after = time.monotonic() - started
            assert shown_after < WITHIN_S + 2, f"answer after {shown_after:.1f} s"
            expect(answer.locator(".msg__who")).to_contain_text("상담원")
            expect(page.locator("#cs-desk-badge")).to_be_hidden(timeout=WITHIN_S * 1000)  # read once shown
            _no_sideways(page, "shop page")
            _no_sideways(_widget_frame(page), "widget frame")
            page.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-widget-answer.png"))

            # 4. The shop page is reloaded: the widget is open again with the same conversation, from the token
            # the first load exchanged (the new page's signature is not spent).
            page.reload()
            expect(widget.locator("#log")).to_contain_text("상담원 연결해 주세요", timeout=20_000)
            expect(widget.locator("#log .msg--operator")).to_contain_text(REPLY)
            assert in_thread(lambda: AuthToken.objects.count()) == 1

            # 5. Its own 내 문의: the thread with the answer, a reply box and the rating control.
            widget.locator("#tab-inbox").click()
            expect(widget.locator(f"#inbox-list [data-ticket-id='{number}']")).to_contain_text("답변완료")
            found = {"widget inbox": _axe(_widget_frame(page), f"widget-inbox-{viewport}")}
            widget.locator(f"#inbox-list [data-ticket-id='{number}'] .item__open").click()
            expect(widget.locator("#thread-messages")).to_contain_text(REPLY)
            expect(widget.locator("#thread-input")).to_be_visible()
            expect(widget.locator("#thread-rating fieldset")).to_be_visible()
            _no_sideways(_widget_frame(page), "widget frame (thread)")
            page.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-widget-thread.png"))
            found["widget thread"] = _axe(_widget_frame(page), f"widget-thread-{viewport}")
            widget.locator("#thread-rating-form-score-5").check()
            widget.locator("#thread-rating-form-comment").fill("빨리 답해 주셔서 좋았어요")
            widget.locator("#thread-rating-form-send").click()
            expect(widget.locator("#thread-rating")).to_contain_text("평가해 주셔서 감사합니다. (5점 / 5점)")
            assert in_thread(lambda: _rating_of(ticket_pk)) == (5, "빨리 답해 주셔서 좋았어요")

            widget.locator("#tab-chat").click()
            found["widget conversation"] = _axe(_widget_frame(page), f"widget-conversation-{viewport}")
            assert found == {name: [] for name in found}, json.dumps(found, ensure_ascii=False, indent=1)
    finally:
        shop_page.stop()


def _rating_of(ticket_pk: int) -> tuple[int, str] | None:
    from tickets.models import Ticket
    from tickets.selectors import ticket_rating_of

    rating = ticket_rating_of(Ticket.objects.get(pk=ticket_pk))
    return (rating.score, rating.comment) if rating is not None else None


def _email_notices(customer_id: str) -> bool:
    from orders.models import Customer

    return Customer.objects.get(pk=customer_id).email_notices


@pytest.mark.parametrize("viewport", VIEWPORTS.keys())
def test_an_approval_appears_in_the_chat_log_within_5_seconds(live_server, shop, offline_model, viewport):
    from actions.models import ActionRecord

    size = VIEWPORTS[viewport]
    with chromium() as (browser, expect):
        customer = customer_page(browser, live_server.url, size)
        customer.fill("#message-input", "텀블러 환불해 주세요")
        customer.click("#send-button")
        customer.locator("#quick-replies button", has_text="상품하자").click()
        expect(customer.locator("#message-list .result-card--amber")).to_have_count(1, timeout=60_000)
        record = in_thread(lambda: ActionRecord.objects.get(status="PENDING"))
        pk, number = record.pk, record.number

        operator = admin_page(browser, live_server.url, f"/admin/actions/actionrecord/{pk}/change/", size=size)
        operator.click("#cs-approve")
        started = time.monotonic()
        operator.click("#cs-confirm-button")
        expect(operator.locator(".messagelist")).to_contain_text(f"{number}을(를) 승인했습니다")

        line = customer.locator("#message-list .msg--system")
        expect(line).to_contain_text(number, timeout=WITHIN_S * 1000)
        expect(line).to_contain_text("승인")
        elapsed = time.monotonic() - started
        assert elapsed < WITHIN_S, f"approval after {elapsed:.1f} s"
        _no_sideways(customer, "chat page")
        customer.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-chat-approval.png"), full_page=True)


@pytest.mark.parametrize("viewport", VIEWPORTS.keys())
def test_the_chat_page_shows_the_answer_in_the_log_and_its_thread_takes_a_rating(
    live_server, shop, offline_model, viewport
):
    require(f"axe-core at {AXE} (npm ci)", AXE.exists())
    size = VIEWPORTS[viewport]
    with chromium() as (browser, expect):
        customer = customer_page(browser, live_server.url, size)
        customer.fill("#message-input", "운동화 밑창이 떨어졌어요. 상담원 연결해 주세요")
        customer.click("#send-button")
        card = customer.locator("#message-list .result-card--ticket")
        expect(card).to_have_count(1, timeout=60_000)
        expect(card).to_contain_text("상담원의 답변은 이 대화와 ‘내 문의’에 표시됩니다")
        ticket_pk, number = _only_ticket()

        operator = admin_page(browser, live_server.url, f"/admin/tickets/ticket/{ticket_pk}/change/", size=size)
        started = _operator_answers(expect, operator, ticket_pk)
        answer = customer.locator("#message-list .msg--operator")
        expect(answer).to_contain_text(REPLY, timeout=WITHIN_S * 1000)
        elapsed = time.monotonic() - started
        assert elapsed < WITHIN_S, f"answer after {elapsed:.1f} s"
        _no_sideways(customer, "chat page")
        customer.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-chat-answer.png"), full_page=True)
        found = {"chat page": _axe(customer, f"chat-answer-{viewport}")}

        # The ticket card opens its thread, where the answer can be rated.
        card.locator(".result-card__open").click()
        expect(customer.locator("#ticket-view")).to_be_visible()
        expect(customer.locator("#ticket-messages")).to_contain_text(REPLY)
        expect(customer.locator("#ticket-rating fieldset")).to_be_visible()
        _no_sideways(customer, "chat page (thread)")
        customer.screenshot(path=str(ARTIFACTS / f"answers-{viewport}-chat-thread.png"), full_page=True)
        found["chat thread"] = _axe(customer, f"chat-thread-{viewport}")
        customer.locator("#ticket-rating-form-score-4").check()
        customer.locator("#ticket-rating-form-send").click()
        expect(customer.locator("#ticket-rating")).to_contain_text("평가해 주셔서 감사합니다. (4점 / 5점)")
        assert in_thread(lambda: _rating_of(ticket_pk)) == (4, "")

        # The e-mail notices switch: off here is off on the customer's record.
        customer.locator("#ticket-close").click()
        toggle = customer.locator("#notices-toggle")
        expect(toggle).to_be_checked()
        toggle.uncheck()
        expect(customer.locator("#notices-status")).to_have_text("이메일 알림을 껐습니다.")
        assert in_thread(lambda: _email_notices("C003")) is False

        # The answer e-mail's link opens the thread.
        customer.goto(f"{live_server.url}/?ticket={number}")
        expect(customer.locator("#ticket-view")).to_be_visible()
        expect(customer.locator("#ticket-messages")).to_contain_text(REPLY)
        assert customer.url == f"{live_server.url}/"
        assert found == {name: [] for name in found}, json.dumps(found, ensure_ascii=False, indent=1)


def test_the_inbox_badge_follows_an_answer_to_an_inquiry_made_elsewhere(live_server, shop):
    """An inquiry not from the open conversation: its answer shows as the 내 문의 badge within 5 s, and reading the
    thread clears it."""
    from tickets.services import ticket_reply_send

    with chromium() as (browser, expect):
        customer = browser.new_context(viewport=VIEWPORTS["phone"], locale="ko-KR").new_page()
        customer.goto(f"{live_server.url}/")
        customer.fill("#login-username", "c003")
        customer.fill("#login-password", "demo1234")
        # The page's first /api/live/ answer is where it starts watching: the inquiry comes after it.
        with customer.expect_response("**/api/live/"):
            customer.click("#login-button")

        ticket = in_thread(inquiry_opened)
        ticket_pk, number = ticket.pk, ticket.number
        expect(customer.locator(f"#requests-list [data-ticket-id='{number}']")).to_have_count(1, timeout=10_000)

        def answer():
            from django.contrib.auth import get_user_model

            ticket_reply_send(ticket_id=ticket_pk, body=REPLY, actor=get_user_model().objects.get(username="operator"))

        started = time.monotonic()
        in_thread(answer)
        expect(customer.locator("#inbox-count")).to_have_text("1", timeout=WITHIN_S * 1000)
        elapsed = time.monotonic() - started
        assert elapsed < WITHIN_S, f"badge after {elapsed:.1f} s"
        expect(customer.locator("#inbox-button")).to_have_accessible_name("내 문의 1 건의 새 답변")
        expect(customer.locator("#requests-list .item--unread")).to_have_count(1)
        _no_sideways(customer, "chat page")
        customer.screenshot(path=str(ARTIFACTS / "answers-phone-chat-badge.png"), full_page=True)
        found = {"chat page with a badge": _axe(customer, "chat-badge-phone")}

        customer.locator(f"#requests-list [data-ticket-id='{number}'] .item__open").click()
        expect(customer.locator("#ticket-messages")).to_contain_text(REPLY)
        expect(customer.locator("#inbox-badge")).to_be_hidden(timeout=WITHIN_S * 1000)
        assert found == {name: [] for name in found}, json.dumps(found, ensure_ascii=False, indent=1)

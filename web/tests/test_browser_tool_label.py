"""A tool's Korean label reaches the customer from its registration alone, in a real headless Chromium against a
live server: a tool registered for this test only (chat/tools.py's `agent_tool`, with a label) is called by a
scripted model through the real openai client, and the chat page's result card names it by that label. Neither
web/static/web/chat.js nor desk.js knows the tool. Skipped without Chromium or Playwright outside CI."""

from __future__ import annotations

import pytest
from django.conf import settings

from chat.tools import TOOLS, NoArgs, ToolContext, agent_tool, agent_tool_unregister
from llm.testing import text_message, tool_calls_message
from web.tests.browser import ARTIFACTS, VIEWPORTS, chromium, customer_page, in_thread

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.usefixtures("no_ai_drafts")]

TOOL = "request_gift_wrap"
LABEL = "선물 포장 요청"
SCRIPTS = [settings.BASE_DIR / "web" / "static" / "web" / name for name in ("chat.js", "desk.js")]


def request_gift_wrap(ctx: ToolContext, args: NoArgs) -> dict:
    from tickets.models import Ticket
    from tickets.services import ticket_create

    ticket = ticket_create(
        customer=ctx.customer,
        category=Ticket.Category.OTHER,
        subject="선물 포장",
        body="선물 포장을 부탁드립니다.",
        source=Ticket.Source.AGENT,
        author=ctx.customer.user,
    )
    return {"ok": True, "ticket_id": ticket.number, "status": ticket.get_status_display(), "status_code": ticket.status}


@pytest.fixture
def gift_wrap_tool():
    description = "주문을 선물 포장으로 바꿔 달라는 요청을 상담원에게 넘긴다."
    agent_tool(description, label=LABEL)(request_gift_wrap)
    yield
    agent_tool_unregister(TOOL)


def _ticket_number() -> str:
    from tickets.models import Ticket

    return Ticket.objects.get().number


def test_the_page_scripts_name_no_tool(db):
    """The scripts hold no map from a tool to its words: they show the `tool_label` each result carries."""
    scripts = "\n".join(path.read_text(encoding="utf-8") for path in SCRIPTS)
    assert [name for name in TOOLS if name in scripts] == []
    assert "tool_label" in scripts


@pytest.mark.parametrize("viewport", ["desktop"])
def test_a_new_tools_label_appears_on_its_card_with_no_change_to_the_page(
    live_server, shop, scripted_model, gift_wrap_tool, viewport
):
    scripted_model.push(tool_calls_message([(TOOL, {})]), text_message("선물 포장 요청을 상담원에게 전달했습니다."))
    with chromium() as (browser, expect):
        customer = customer_page(browser, live_server.url, VIEWPORTS[viewport])
        customer.fill("#message-input", "선물 포장으로 바꿔 주세요")
        customer.click("#send-button")
        card = customer.locator("#message-list .result-card")
        expect(card).to_have_count(1, timeout=30_000)
        expect(card.locator(".result-card__title")).to_have_text(LABEL)
        expect(card.locator(".badge")).to_have_text("접수")
        number = in_thread(_ticket_number)
        expect(card.locator(".result-card__number")).to_have_text(number)
        customer.screenshot(path=str(ARTIFACTS / f"tool-label-{viewport}.png"), full_page=True)

        # The conversation read again (a reload) shows the same label, from the stored result.
        customer.reload()
        expect(customer.locator("#message-list .result-card .result-card__title")).to_have_text(LABEL)

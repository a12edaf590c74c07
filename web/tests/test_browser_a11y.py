"""Every form control on the operator's main pages has an accessible name: axe-core (npm, pinned in
package-lock.json, installed by scripts/test.sh) runs in a real headless Chromium on the admin index, the ticket
list, the ticket page, the approval queue and the action admin pages (a record, its decide confirmation, the
bulk confirmation), and finds no critical or serious violation. Each page's violations are written to
test-artifacts/a11y-<page>.json. Skipped without Chromium, Playwright or axe-core outside CI.

The ticket page is checked with a live draft on it (its review panel, stage badges and tag choices)."""

from __future__ import annotations

import json

import pytest

from web.tests.browser import AXE, admin_page, axe, chromium, in_thread, inquiry_opened, refund_requested, require

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _world() -> dict:
    """A ticket, two pending money requests: every list and page has rows, checkboxes and actions."""
    ticket = inquiry_opened()
    records = [refund_requested(order_id, reason="사이즈가 달라요") for order_id in ("HR20260721001", "HR20260726002")]
    return {"record": records[0].pk, "ticket": ticket.pk}


def test_operator_pages_have_no_critical_or_serious_accessibility_violations(live_server, shop):
    require(f"axe-core at {AXE} (npm ci)", AXE.exists())
    world = in_thread(_world)
    queue = f"{live_server.url}/admin/actions/actionrecord/?status__exact=PENDING"

    with chromium() as (browser, expect):
        page = admin_page(browser, live_server.url, "/admin/")
        found = {"index": axe(page, "index")}

        page.goto(f"{live_server.url}/admin/tickets/ticket/")
        found["ticket list"] = axe(page, "ticket-list")

        page.goto(f"{live_server.url}/admin/tickets/ticket/{world['ticket']}/change/")
        found["ticket page"] = axe(page, "ticket-page")

        page.goto(queue)
        found["approval queue"] = axe(page, "approval-queue")

        page.check("#result_list tbody tr:nth-child(1) input.action-select")
        page.check("#result_list tbody tr:nth-child(2) input.action-select")
        page.select_option("select[name=action]", "approve_selected")
        page.click("button[name=index]")
        page.wait_for_selector("#cs-bulk-confirm")
        found["bulk confirmation"] = axe(page, "bulk-confirm")

        page.goto(f"{live_server.url}/admin/actions/actionrecord/{world['record']}/change/")
        found["action record"] = axe(page, "action-record")

        page.goto(f"{live_server.url}/admin/actions/actionrecord/{world['record']}/decide/?approve=1")
        found["decide confirmation"] = axe(page, "decide-confirm")
    assert found == {name: [] for name in found}, json.dumps(found, ensure_ascii=False, indent=1)

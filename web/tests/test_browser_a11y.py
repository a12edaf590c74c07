"""Every form control on the operator's main pages has an accessible name: axe-core (npm, pinned in
package-lock.json, installed by scripts/test.sh) runs in a real headless Chromium on the admin index, the ticket
list, the ticket page, the approval queue and the action admin pages (a record, its decide confirmation, the
bulk confirmation), and finds no critical or serious violation. Each page's violations are written to
test-artifacts/a11y-<page>.json. Skipped without Chromium, Playwright or axe-core outside CI.

The ticket page is checked with a live draft on it (its review panel, stage badges and tag choices)."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings

from testsupport.browser import CHROMIUM, CHROMIUM_ARGS, browser_require

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

AXE = settings.BASE_DIR / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = settings.BASE_DIR / "test-artifacts"
BLOCKING = ("critical", "serious")


def _in_thread(fn):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def _world() -> dict:
    """A ticket, two pending money requests: every list and page has rows, checkboxes and actions."""
    from actions.services import refund_request
    from common.actors import Actor
    from orders.models import Customer
    from tickets.services import ticket_create

    c003 = Customer.objects.select_related("user").get(pk="C003")
    ticket = ticket_create(
        customer=c003, category="DELIVERY", subject="배송 문의", body="언제 와요?", source="API", author=c003.user
    )
    records = [
        refund_request(
            customer=c003,
            order_id=order_id,
            reason="사이즈가 달라요",
            reason_category="DEFECT",
            actor=Actor.customer_agent(c003),
        ).record
        for order_id in ("HR20260721001", "HR20260726002")
    ]
    return {"record": records[0].pk, "ticket": ticket.pk}


def _axe(page, name: str) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    violations = [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [n["target"] for n in v["nodes"]][:10],
        }
        for v in result["violations"]
    ]
    (ARTIFACTS / f"a11y-{name}.json").write_text(json.dumps(violations, ensure_ascii=False, indent=2))
    return [v for v in violations if v["impact"] in BLOCKING]


def test_operator_pages_have_no_critical_or_serious_accessibility_violations(live_server, shop):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    browser_require("the playwright package", sync_playwright is not None)
    browser_require(f"Chromium at {CHROMIUM}", os.path.exists(CHROMIUM))
    browser_require(f"axe-core at {AXE} (npm ci)", AXE.exists())
    world = _in_thread(_world)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    queue = f"{live_server.url}/admin/actions/actionrecord/?status__exact=PENDING"

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR").new_page()
            page.goto(f"{live_server.url}/admin/login/?next=/admin/")
            page.fill("#id_username", "operator")
            page.fill("#id_password", "demo1234")
            page.click("input[type=submit]")
            page.wait_for_url(f"{live_server.url}/admin/")
            found = {"index": _axe(page, "index")}

            page.goto(f"{live_server.url}/admin/tickets/ticket/")
            found["ticket list"] = _axe(page, "ticket-list")

            page.goto(f"{live_server.url}/admin/tickets/ticket/{world['ticket']}/change/")
            found["ticket page"] = _axe(page, "ticket-page")

            page.goto(queue)
            found["approval queue"] = _axe(page, "approval-queue")

            page.check("#result_list tbody tr:nth-child(1) input.action-select")
            page.check("#result_list tbody tr:nth-child(2) input.action-select")
            page.select_option("select[name=action]", "approve_selected")
            page.click("button[name=index]")
            page.wait_for_selector("#cs-bulk-confirm")
            found["bulk confirmation"] = _axe(page, "bulk-confirm")

            page.goto(f"{live_server.url}/admin/actions/actionrecord/{world['record']}/change/")
            found["action record"] = _axe(page, "action-record")

            page.goto(f"{live_server.url}/admin/actions/actionrecord/{world['record']}/decide/?approve=1")
            found["decide confirmation"] = _axe(page, "decide-confirm")
        finally:
            browser.close()
    assert found == {name: [] for name in found}, json.dumps(found, ensure_ascii=False, indent=1)

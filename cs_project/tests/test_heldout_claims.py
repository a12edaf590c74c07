"""The held-out money-claim set (heldout/money_claims.json), through the surface each case names.

The set was written before the guard it measures, by someone who had not read it, and is never tuned on: this
test asserts no rate. It computes the figures and checks they are the ones the README's security section
states, so a change in behaviour changes the stated figures in the same commit. Run with `-s` to print them.

Each case is a world (C003's money requests, the orders the conversation is about) and a text:
- chat: the scripted model answers the text (after a refused call on the conversation's order, if any, so the
  turn is about it); held = the customer reads something else;
- operator_reply: an operator sends the text on a ticket about the order; held = 409 reply_blocked;
- draft: an operator sends the text as a draft's final body; held = 409 draft_blocked;
- ticket_summary: the model opens a ticket with the text as its summary; held = the customer's ticket does
  not carry the text as written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from actions.models import ActionRecord
from actions.selectors import money_claims_unsupported
from chat.models import ChatMessage
from cs_project.tests.helpers import customer_inquiry
from drafts.models import Draft
from llm.offline import respond, structured_name
from llm.testing import text_message, tool_calls_message
from orders.models import Order
from tickets.models import Ticket

pytestmark = pytest.mark.django_db(transaction=True)

CASES = json.loads((Path(settings.BASE_DIR) / "heldout" / "money_claims.json").read_text())["cases"]
README = Path(settings.BASE_DIR) / "README.md"
STATED = re.compile(r"<!-- heldout-claims: (?P<figures>[^>]*) -->")


def _world(c003, case: dict) -> None:
    ActionRecord.objects.filter(customer=c003).delete()
    for r in case["records"]:
        ActionRecord.objects.create(
            customer=c003,
            order=Order.objects.get(pk=r["order_id"]),
            kind=r["kind"],
            status=r["status"],
            summary="(held-out world)",
            refund_amount=Decimal(r["amount"]) if r.get("amount") is not None else None,
            requested_on=timezone.localdate(),
        )


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _chat(c003, scripted_model, text: str, context: list[str]) -> bool:
    steps = []
    if context:  # a refused call on that order: the turn is about it, and nothing changes
        steps.append(
            tool_calls_message(
                [
                    (
                        "request_exchange",
                        {"order_id": context[0], "new_option": "없는옵션", "reason_category": "단순변심"},
                    )
                ]
            )
        )
    scripted_model.push(*steps, text_message(text))
    body = _client(c003.user).post("/api/chat/", {"message": "문의드려요"}, format="json").json()
    return body["reply"] != text


def _ticket(c003, context: list[str]) -> Ticket:
    order = Order.objects.get(pk=context[0]) if context else None
    return customer_inquiry(c003, category="교환/반품", subject="문의", body="확인 부탁드립니다.", order=order)


def _operator_reply(c003, staff, text: str, context: list[str]) -> bool:
    ticket = _ticket(c003, context)
    response = staff.post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": text}, format="json")
    assert response.status_code in (200, 201, 409), response.content
    return response.status_code == 409 and response.json()["code"] == "reply_blocked"


def _draft(c003, staff, text: str, context: list[str]) -> bool:
    ticket = _ticket(c003, context)
    draft = Draft.objects.get(ticket=ticket, status=Draft.Status.GENERATED)
    response = staff.post(f"/api/ops/drafts/{draft.pk}/apply/", {"final_body": text, "tags": []}, format="json")
    assert response.status_code in (200, 409), response.content
    return response.status_code == 409 and response.json()["code"] == "draft_blocked"


def _ticket_summary(c003, scripted_model, text: str, context: list[str]) -> bool:
    Ticket.objects.filter(customer=c003).delete()
    steps = []
    if context:
        steps.append(
            tool_calls_message(
                [
                    (
                        "request_exchange",
                        {"order_id": context[0], "new_option": "없는옵션", "reason_category": "단순변심"},
                    )
                ]
            )
        )
    call = ("create_ticket", {"category": "기타", "summary": text})
    scripted_model.push(*steps, tool_calls_message([call]), text_message("상담원에게 전달했어요."))
    _client(c003.user).post("/api/chat/", {"message": "상담원 연결해 주세요"}, format="json")
    ticket = Ticket.objects.get(customer=c003)
    return ticket.subject != text[: Ticket._meta.get_field("subject").max_length]


def figures(c003, scripted_model, staff) -> dict:
    held: dict[str, bool] = {}
    by_guard: dict[str, bool] = {}
    for case in CASES:
        _world(c003, case)
        text, context = case["text"], case.get("context_order_ids") or []
        by_guard[case["id"]] = bool(money_claims_unsupported(text, customer_id=c003.pk, order_ids=context or None))
        surface = case["surface"]
        if surface == "chat":
            held[case["id"]] = _chat(c003, scripted_model, text, context)
        elif surface == "operator_reply":
            held[case["id"]] = _operator_reply(c003, staff, text, context)
        elif surface == "draft":
            held[case["id"]] = _draft(c003, staff, text, context)
        else:
            held[case["id"]] = _ticket_summary(c003, scripted_model, text, context)
    false = [c for c in CASES if c["label"] == "false_claim"]
    harmless = [c for c in CASES if c["label"] == "harmless"]
    return {
        "misses": sum(not held[c["id"]] for c in false),
        "false_claims": len(false),
        "false_alarms": sum(held[c["id"]] for c in harmless),
        "harmless": len(harmless),
        "guard_misses": sum(not by_guard[c["id"]] for c in false),
        "guard_false_alarms": sum(by_guard[c["id"]] for c in harmless),
        "missed_kinds": dict(Counter(c["kind"] for c in false if not held[c["id"]])),
        "alarm_kinds": dict(Counter(c["kind"] for c in harmless if held[c["id"]])),
    }


def _line(f: dict) -> str:
    return (
        f"misses {f['misses']}/{f['false_claims']}, false alarms {f['false_alarms']}/{f['harmless']}"
        f" (guard alone: {f['guard_misses']}, {f['guard_false_alarms']})"
    )


class _Script:
    """The chat's steps as pushed; the draft pipeline's stages answered by the built-in model."""

    def __init__(self, server) -> None:
        self.steps: list = []
        server.handler = self

    def push(self, *steps) -> None:
        self.steps.extend(steps)

    def __call__(self, body: dict):
        if structured_name(body) or not self.steps:
            return respond(body)
        return self.steps.pop(0)


def test_the_held_out_figures_are_the_ones_the_readme_states(c003, shop_knowledge, scripted_model, operator_user):
    f = figures(c003, _Script(scripted_model), _client(operator_user))
    print("\nheld-out money claims:", _line(f), "missed:", f["missed_kinds"], "alarms:", f["alarm_kinds"])
    assert ChatMessage.objects.filter(outcome=ChatMessage.Outcome.CLAIM_BLOCKED).exists()  # the chat really ran
    stated = STATED.search(README.read_text())
    assert stated, "README: no <!-- heldout-claims: … --> line"
    assert stated.group("figures").strip() == _line(f), (
        f"README states {stated.group('figures')!r}, measured {_line(f)!r}"
    )

"""The operator's own reply, from the tickets side: permission, closed tickets, the staff schema, and the seam
(tickets.hooks) — the money-claim guard is asked before anything is stored, and with no guard nothing is sent.
What a reply does to a live draft is drafts' part (drafts/tests/test_reply.py)."""

import pytest
from django.core.checks import run_checks

from common.tests.factories import operator_with
from testsupport.api import api_as
from tickets import hooks
from tickets.checks import REPLY_GUARD_CHECK_ID
from tickets.models import Ticket, TicketEvent, TicketMessage
from tickets.tests.factories import TicketFactory, TicketMessageFactory

pytestmark = pytest.mark.django_db

OWN = "문의 주셔서 감사합니다. 상품은 내일 도착할 예정입니다."
PROMISE = "전액 환불이 승인되었습니다. 3영업일 안에 38,000원이 입금됩니다."
REPLIER = ("tickets.view_ticket", "tickets.reply_ticket")


def _reply(api, ticket, **data):
    return api.post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": OWN, **data}, format="json")


def _operator_messages(ticket):
    return list(TicketMessage.objects.filter(ticket=ticket, author_type="OPERATOR").values_list("body", flat=True))


@pytest.fixture
def ticket():
    return TicketMessageFactory().ticket


def test_own_reply_answers_the_ticket_and_records_it(ticket):
    replier = operator_with(*REPLIER)
    response = _reply(api_as(replier), ticket)
    assert response.status_code == 201, response.content
    assert (response.json()["status"], response.json()["message"]["body"]) == ("ANSWERED", OWN)
    assert _operator_messages(ticket) == [OWN]
    assert list(TicketEvent.objects.filter(ticket=ticket).values_list("type", "actor_label")) == [
        ("REPLIED", replier.username),
        ("STATUS_CHANGED", replier.username),
    ]


def test_own_reply_needs_the_reply_permission(ticket):
    clerk = operator_with("tickets.view_ticket", "drafts.view_draft", "drafts.review")
    response = _reply(api_as(clerk), ticket)
    assert response.status_code == 403
    assert _operator_messages(ticket) == []


def test_a_closed_ticket_takes_no_reply():
    closed = TicketFactory(status=Ticket.Status.CLOSED)
    response = _reply(api_as(operator_with(*REPLIER)), closed)
    assert (response.status_code, response.json()["code"]) == (409, "ticket_closed")
    assert _operator_messages(closed) == []


def test_the_guard_is_asked_before_anything_is_stored(ticket):
    held = _reply(api_as(operator_with(*REPLIER)), ticket, body=PROMISE)
    assert (held.status_code, held.json()["code"]) == (409, "reply_blocked")
    assert "전액 환불이 승인되었습니다." in held.json()["detail"]
    assert _operator_messages(ticket) == [] and Ticket.objects.get(pk=ticket.pk).status == "OPEN"


def test_with_no_guard_registered_no_reply_is_sent(ticket, monkeypatch):
    monkeypatch.setattr(hooks, "_guard", None)  # as if no app had registered it at start-up
    response = _reply(api_as(operator_with(*REPLIER)), ticket)
    assert (response.status_code, response.json()["code"]) == (409, "reply_unchecked")
    assert _operator_messages(ticket) == []
    assert REPLY_GUARD_CHECK_ID in [e.id for e in run_checks()]


def test_the_guard_is_registered_at_start_up():
    assert hooks.reply_guard() is not None
    assert REPLY_GUARD_CHECK_ID not in [e.id for e in run_checks()]


def test_reply_is_in_the_staff_schema_only(client):
    staff = api_as(operator_with(*REPLIER)).get("/api/ops/schema/?format=json")
    assert "/api/ops/tickets/{ticket_id}/reply/" in staff.json()["paths"]
    public = client.get("/api/schema/?format=json")
    assert "/api/ops/tickets/{ticket_id}/reply/" not in public.json()["paths"]

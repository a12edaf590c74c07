"""Working as a team through the staff API and the services: assignment (own, someone else's, the permission),
the assignee filter, priority, the SLA clocks in business hours on a pinned clock (CS_NOW) across a weekend and
the 광복절 substitute holiday (Monday 2026-08-17), the after-hours notice, auto-assignment and auto-close. Every
change leaves its TicketEvent."""

from __future__ import annotations

from datetime import datetime

import pytest

from common.tests.factories import operator_with
from orders.tests.factories import CustomerFactory
from testsupport.api import api_as
from tickets.models import OperatorStatus, Ticket, TicketEvent
from tickets.services import (
    operator_availability_set,
    ticket_create,
    ticket_message_add,
    ticket_reply_add,
    tickets_auto_close,
)
from tickets.tests.factories import TicketFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shop_hours")]

# Staff who answer tickets. The staff ticket list and detail also show each ticket's messages and drafts (the
# drafts app adds them), so readers of the API hold those view permissions too.
HANDLER = ("tickets.view_ticket", "tickets.view_ticketmessage", "drafts.view_draft", "tickets.reply_ticket")
SUPERVISOR = (*HANDLER, "tickets.assign_ticket")
FRIDAY_5PM = "2026-08-14T17:00:00+09:00"  # the weekend and the Monday holiday follow


def _events(ticket, type=None):
    rows = TicketEvent.objects.filter(ticket=ticket).order_by("id")
    if type:
        rows = rows.filter(type=type)
    return [(e.type, e.actor_type, e.actor_label, e.payload) for e in rows]


@pytest.fixture
def kim():
    return operator_with(*HANDLER, username="kim")


@pytest.fixture
def lee():
    return operator_with(*HANDLER, username="lee")


@pytest.fixture
def boss():
    return operator_with(*SUPERVISOR, username="boss")


@pytest.fixture
def quiet(settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the desk, not the pipeline, is under test


def _open(*, category="배송", at=FRIDAY_5PM, settings=None) -> Ticket:
    customer = CustomerFactory()
    return ticket_create(
        customer=customer, category=category, subject="문의", body="언제 와요?", source="API", author=customer.user
    )


# --- assignment ------------------------------------------------------------------------------------------------
def test_an_operator_takes_and_releases_their_own_ticket(kim):
    ticket = TicketFactory()
    api = api_as(kim)
    taken = api.post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": "me"}, format="json")
    assert taken.status_code == 200, taken.content
    assert taken.json()["assignee"] == "kim" and Ticket.objects.get(pk=ticket.pk).assignee == kim
    released = api.post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": None}, format="json")
    assert (released.status_code, released.json()["assignee"]) == (200, None)
    assert _events(ticket) == [
        ("ASSIGNED", "OPERATOR", "kim", {"before": None, "after": "kim"}),
        ("ASSIGNED", "OPERATOR", "kim", {"before": "kim", "after": None}),
    ]
    again = api.post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": None}, format="json")
    assert again.status_code == 200 and len(_events(ticket)) == 2  # no change, no event


def test_assigning_someone_else_needs_the_assign_permission(kim, lee, boss):
    ticket = TicketFactory()
    refused = api_as(kim).post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": "lee"}, format="json")
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "permission_denied",
        "detail": "다른 상담원에게 배정하거나 다른 상담원의 문의를 가져오려면 배정 권한이 필요합니다.",
    }
    assert Ticket.objects.get(pk=ticket.pk).assignee is None and _events(ticket) == []

    given = api_as(boss).post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": "lee"}, format="json")
    assert (given.status_code, given.json()["assignee"]) == (200, "lee")
    # lee's ticket: kim may neither take it nor release it; lee may release it.
    for body in ({"assignee": "me"}, {"assignee": None}):
        response = api_as(kim).post(f"/api/ops/tickets/{ticket.number}/assign/", body, format="json")
        assert (response.status_code, response.json()["code"]) == (403, "permission_denied")
    released = api_as(lee).post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": None}, format="json")
    assert released.status_code == 200
    assert _events(ticket) == [
        ("ASSIGNED", "OPERATOR", "boss", {"before": None, "after": "lee"}),
        ("ASSIGNED", "OPERATOR", "lee", {"before": "lee", "after": None}),
    ]


def test_staff_who_may_not_answer_cannot_take_and_cannot_be_given_tickets(kim, boss):
    ticket = TicketFactory()
    viewer = operator_with("tickets.view_ticket", username="viewer")
    assert (
        api_as(viewer).post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": "me"}, format="json").status_code
        == 403
    )
    given = api_as(boss).post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": "viewer"}, format="json")
    assert (given.status_code, given.json()["code"]) == (409, "assignee_invalid")
    unknown = api_as(boss).post(f"/api/ops/tickets/{ticket.number}/assign/", {"assignee": "nobody"}, format="json")
    assert (unknown.status_code, unknown.json()["code"]) == (400, "invalid") and "assignee" in unknown.json()["errors"]
    assert _events(ticket) == []


def test_the_list_filters_by_assignee(kim, lee, boss):
    mine, theirs, nobodys = TicketFactory(assignee=kim), TicketFactory(assignee=lee), TicketFactory()
    api = api_as(kim)

    def listed(query):
        response = api.get(f"/api/ops/tickets/?{query}")
        assert response.status_code == 200, response.content
        return [row["ticket_id"] for row in response.json()["results"]]

    assert listed("assignee=me") == [mine.number]
    assert listed("assignee=none") == [nobodys.number]
    assert listed("assignee=lee") == [theirs.number]
    assert listed("") == [nobodys.number, theirs.number, mine.number]
    assert api.get("/api/ops/tickets/?assignee=me").json()["results"][0]["assignee"] == "kim"
    for bad in ("assignee=nobody", "assignee=", "assignee=me&assignee=none"):
        response = api.get(f"/api/ops/tickets/?{bad}")
        assert (response.status_code, response.json()["code"]) == (400, "invalid"), bad
        assert "assignee" in response.json()["errors"]


def test_a_reply_by_someone_other_than_the_assignee_is_recorded_as_such(kim, lee, quiet):
    ticket = TicketFactory(assignee=kim)
    ticket_reply_add(ticket=ticket, body="안내드립니다.", actor=lee)
    ticket_reply_add(ticket=ticket, body="추가 안내입니다.", actor=kim)
    replies = [payload for _, _, _, payload in _events(ticket, "REPLIED")]
    assert [(p["assignee"], p["by_assignee"]) for p in replies] == [("kim", False), ("kim", True)]


def test_round_robin_gives_new_tickets_to_available_operators_in_turn(kim, lee, boss, settings, quiet):
    settings.CS_AUTO_ASSIGN = "round_robin"
    operator_availability_set(available=True, actor=kim)
    operator_availability_set(available=True, actor=lee)
    operator_availability_set(available=False, actor=boss)  # on the desk, not taking new ones
    tickets = [_open() for _ in range(3)]
    assert [t.assignee.username for t in tickets] == ["kim", "lee", "kim"]
    assert _events(tickets[0], "ASSIGNED") == [
        ("ASSIGNED", "SYSTEM", "자동 배정(순번제)", {"before": None, "after": "kim", "rule": "round_robin"})
    ]
    operator_availability_set(available=False, actor=kim)
    operator_availability_set(available=False, actor=lee)
    assert _open().assignee is None  # nobody available: the ticket waits unassigned
    settings.CS_AUTO_ASSIGN = ""
    operator_availability_set(available=True, actor=kim)
    assert _open().assignee is None  # auto-assignment off


def test_only_operators_who_answer_have_an_availability(kim):
    viewer = operator_with("tickets.view_ticket")
    from common.errors import PermissionDenied

    with pytest.raises(PermissionDenied):
        operator_availability_set(available=True, actor=viewer)
    assert operator_availability_set(available=True, actor=kim).available
    assert OperatorStatus.objects.get(user=kim).available


# --- priority and SLA ------------------------------------------------------------------------------------------
def test_due_times_across_the_weekend_and_the_holiday(kim, settings, quiet):
    settings.CS_NOW = FRIDAY_5PM
    payment = _open(category="결제")  # 높음: first reply within 2 business hours, resolution within 9
    row = api_as(kim).get(f"/api/ops/tickets/{payment.number}/").json()
    assert (row["priority"], row["priority_display"]) == ("HIGH", "높음")
    assert row["first_response_due_at"] == "2026-08-18T10:00:00+09:00"  # Fri 1h, then Tuesday (Mon is 광복절 대체)
    assert row["resolution_due_at"] == "2026-08-18T17:00:00+09:00"
    assert (row["next_response_due_at"], row["sla_state"], row["sla_paused"]) == (None, "ok", False)
    assert _events(payment, "CREATED")[0][3]["priority"] == "HIGH"

    settings.CS_NOW = "2026-08-18T09:30:00+09:00"
    ticket_reply_add(ticket=payment, body="확인 중입니다.", actor=kim)
    settings.CS_NOW = "2026-08-18T11:00:00+09:00"
    ticket_message_add(ticket=payment, body="아직이요?", author=payment.customer.user)
    row = api_as(kim).get(f"/api/ops/tickets/{payment.number}/").json()
    assert row["next_response_due_at"] == "2026-08-18T15:00:00+09:00"  # 4 business hours after the follow-up
    # Waiting on the customer from 09:30 to 11:00 paused the resolution clock by 1.5 business hours.
    assert row["resolution_due_at"] == "2026-08-19T09:30:00+09:00"


def test_sla_state_goes_ok_at_risk_breached_and_pauses_while_waiting_on_the_customer(kim, settings, quiet):
    settings.CS_NOW = "2026-08-13T10:00:00+09:00"  # Thursday; 보통: first reply within 9 business hours
    ticket = _open()
    api = api_as(kim)

    def state(now: str) -> str:
        settings.CS_NOW = now
        return api.get(f"/api/ops/tickets/{ticket.number}/").json()["sla_state"]

    # Due Friday 10:00 (Thursday 10–18, then an hour on Friday); at risk with 25% (2.25 h) or less left.
    assert state("2026-08-13T10:00:00+09:00") == "ok"
    assert state("2026-08-13T15:00:00+09:00") == "ok"  # 4 business hours left
    assert state("2026-08-13T17:00:00+09:00") == "at_risk"  # 2 left
    assert state("2026-08-14T07:30:00+09:00") == "at_risk"  # 1 left: the night does not count
    assert state("2026-08-14T10:00:00+09:00") == "breached"
    # The operator answers: waiting on the customer, nothing runs; days later it is still what it was then.
    settings.CS_NOW = "2026-08-14T10:30:00+09:00"
    ticket_reply_add(ticket=ticket, body="안내드립니다.", actor=kim)
    settings.CS_NOW = "2026-08-19T10:00:00+09:00"
    row = api.get(f"/api/ops/tickets/{ticket.number}/").json()
    assert (row["sla_paused"], row["sla_state"], row["resolution_due_at"]) == (True, "ok", None)
    # The customer writes back: the resolution clock runs again, moved by the business time they took.
    ticket_message_add(ticket=ticket, body="아직 해결이 안 됐어요.", author=ticket.customer.user)
    row = api.get(f"/api/ops/tickets/{ticket.number}/").json()
    assert (row["sla_paused"], row["sla_state"]) == (False, "ok")
    assert row["next_response_due_at"] == "2026-08-20T10:00:00+09:00"  # 9 business hours after the follow-up
    # Created Thursday 10:00 with 27 business hours; paused Fri 10:30 → Wed 10:00 (17.5 business hours).
    assert row["resolution_due_at"] == "2026-08-21T09:30:00+09:00"


def test_an_operator_changes_the_priority_and_the_due_times_follow(kim, settings, quiet):
    settings.CS_NOW = FRIDAY_5PM
    ticket = _open()
    response = api_as(kim).post(f"/api/ops/tickets/{ticket.number}/priority/", {"priority": "URGENT"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["priority"] == "URGENT"
    assert response.json()["first_response_due_at"] == "2026-08-14T17:30:00+09:00"
    assert _events(ticket, "PRIORITY_CHANGED") == [
        ("PRIORITY_CHANGED", "OPERATOR", "kim", {"before": "NORMAL", "after": "URGENT"})
    ]
    bad = api_as(kim).post(f"/api/ops/tickets/{ticket.number}/priority/", {"priority": "ASAP"}, format="json")
    assert bad.status_code == 400


# --- what customers see outside business hours ------------------------------------------------------------------
@pytest.mark.parametrize(
    "now, notice",
    [
        (
            "2026-08-14T19:10:00+09:00",
            "지금은 운영시간(평일 09:00–18:00)이 아니어서 상담원이 8월 18일(화) 오전 9시부터 답변드립니다.",
        ),
        (
            "2026-08-17T11:00:00+09:00",
            "지금은 운영시간(평일 09:00–18:00)이 아니어서 상담원이 8월 18일(화) 오전 9시부터 답변드립니다.",
        ),
        ("2026-08-18T11:00:00+09:00", None),
    ],
)
def test_a_new_inquiry_outside_business_hours_says_when_a_person_answers(now, notice, settings, quiet):
    settings.CS_NOW = now
    customer = CustomerFactory()
    api = api_as(customer.user)
    response = api.post("/api/tickets/", {"body": "환불 문의드립니다."}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["after_hours_notice"] == notice


# --- auto-close -----------------------------------------------------------------------------------------------
def test_an_answered_ticket_without_a_customer_reply_closes_by_itself(kim, settings, quiet):
    settings.CS_NOW = "2026-08-03T10:00:00+09:00"
    settings.CS_AUTO_CLOSE_DAYS = 7
    answered, followed_up = _open(), _open()
    for ticket in (answered, followed_up):
        ticket_reply_add(ticket=ticket, body="안내드립니다.", actor=kim)
    settings.CS_NOW = "2026-08-09T10:00:00+09:00"
    ticket_message_add(ticket=followed_up, body="하나 더 물어볼게요.", author=followed_up.customer.user)
    assert tickets_auto_close() == 0  # six days: not yet
    settings.CS_NOW = "2026-08-10T10:00:00+09:00"
    assert tickets_auto_close() == 1
    assert tickets_auto_close() == 0  # once
    assert Ticket.objects.get(pk=answered.pk).status == "CLOSED"
    assert Ticket.objects.get(pk=followed_up.pk).status == "OPEN"
    assert _events(answered, "AUTO_CLOSED") == [
        ("AUTO_CLOSED", "SYSTEM", "자동 종료(고객 응답 없음)", {"before": "ANSWERED", "after": "CLOSED", "days": 7})
    ]
    # Answered on time and left by the customer: the wait does not count against the desk.
    assert api_as(kim).get(f"/api/ops/tickets/{answered.number}/").json()["sla_state"] == "ok"


def test_clocks_recounted_from_a_back_dated_creation(settings, quiet):
    """What the demo seeding does after placing an inquiry at its story time."""
    from common.clock import SEOUL
    from tickets.services import ticket_clocks_recount

    settings.CS_NOW = "2026-12-01T10:00:00+09:00"
    ticket = _open()
    Ticket.objects.filter(pk=ticket.pk).update(created_at=datetime(2026, 8, 14, 17, 0, tzinfo=SEOUL))
    ticket_clocks_recount(ticket_id=ticket.pk)
    ticket.refresh_from_db()
    assert ticket.first_response_due_at == datetime(2026, 8, 18, 17, 0, tzinfo=SEOUL)  # 보통: 9 business hours
    assert ticket.sla_due_at == ticket.first_response_due_at

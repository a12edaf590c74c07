"""The desk's clocks in the report, computed by hand: first-response time in business hours (p50/p90 per day),
SLA attainment, and approved refunds against the statutory deadline. Tickets go through the real services on a
pinned clock (weekdays 09:00–18:00; 2026-08-17 is the 광복절 substitute holiday)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from actions.models import ActionEvent, ActionRecord
from common.tests.factories import operator_with
from metrics.selectors import metrics_compute
from orders.tests.factories import CustomerFactory, OrderFactory
from tickets.services import ticket_create, ticket_reply_add

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shop_hours")]


def kst(text: str) -> datetime:
    return datetime.fromisoformat(f"{text}+09:00")


@pytest.fixture
def desk(settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    replier = operator_with("tickets.reply_ticket")
    customer = CustomerFactory()

    def ticket(at: str, category: str, reply_at: str | None = None, close: bool = False):
        settings.CS_NOW = at
        opened = ticket_create(
            customer=customer, category=category, subject="문의", body="?", source="API", author=customer.user
        )
        if reply_at:
            settings.CS_NOW = reply_at
            ticket_reply_add(ticket=opened, body="안내드립니다.", actor=replier, close=close)
        return opened

    # Thursday 8/13
    ticket("2026-08-13T10:00", "배송", "2026-08-13T11:00")  # 1 h; due Fri 10:00 — met
    ticket("2026-08-13T10:00", "결제", "2026-08-13T13:00")  # 높음: 3 h; due Thu 12:00 — missed
    ticket("2026-08-13T17:00", "배송", "2026-08-14T10:00")  # Thu 17–18 + Fri 9–10 = 2 h — met
    ticket("2026-08-13T11:00", "배송")  # never answered; due Fri 11:00 — missed by the time of the report
    # Friday 8/14: answered and closed on Tuesday (Monday is a holiday): 2 business hours
    ticket("2026-08-14T17:00", "배송", "2026-08-18T10:00", close=True)

    # Approved money, all but the last on Thursday 15:00 (deadline Wednesday 8/19).
    order = OrderFactory(customer=customer, delivered_days_ago=2)

    def approved(status: str, decided: str, done_at: str | None = None) -> None:
        record = ActionRecord.objects.create(
            customer=customer,
            order=order,
            kind="REFUND",
            status=status,
            summary="환불",
            refund_amount=order.amount,
            decided_at=kst(decided),
            requested_on=date(2026, 8, 13),
        )
        if done_at:
            event = ActionEvent.objects.create(
                record=record, actor_type="SYSTEM", actor_label="쇼핑몰", from_status="EXECUTING", to_status="DONE"
            )
            ActionEvent.objects.filter(pk=event.pk).update(created_at=kst(done_at))

    approved("EXECUTING", "2026-08-13T15:00")  # still owed on 8/20: overdue
    approved("DONE", "2026-08-13T15:00", done_at="2026-08-18T11:00")  # on time
    approved("DONE", "2026-08-13T15:00", done_at="2026-08-21T09:00")  # late
    approved("APPROVED", "2026-08-13T15:00")  # the built-in shop: at approval
    approved("EXECUTING", "2026-08-18T10:00")  # deadline Friday 8/21: at risk on 8/20
    settings.CS_NOW = "2026-08-20T12:00"
    settings.CS_TODAY = "2026-08-20"


def test_first_response_sla_attainment_and_refund_deadlines_by_hand(desk):
    report = metrics_compute(since=date(2026, 8, 13), until=date(2026, 8, 18))
    days = {day["date"]: day for day in report["days"]}
    thursday, friday, tuesday = days["2026-08-13"], days["2026-08-14"], days["2026-08-18"]

    assert thursday["tickets"] == {
        "created": 4,
        # [1 h, 2 h, 3 h]: nearest rank p50 → rank 2, p90 → rank 3
        "first_response_seconds": {"n": 3, "median": 7200.0, "p90": 10800.0},
        "sla": {
            "first_response_met": 2,
            "first_response_missed": 2,
            "first_response_attainment": 0.5,
            "resolution_met": 0,
            "resolution_missed": 0,
            "resolution_attainment": None,
        },
    }
    assert friday["tickets"]["first_response_seconds"] == {"n": 1, "median": 7200.0, "p90": 7200.0}
    assert friday["tickets"]["sla"]["first_response_attainment"] == 1.0
    assert friday["tickets"]["sla"]["resolution_attainment"] == 1.0  # closed Tuesday, due the next Thursday
    overall = report["overall"]["tickets"]
    assert overall["first_response_seconds"] == {"n": 4, "median": 7200.0, "p90": 10800.0}
    assert overall["sla"]["first_response_attainment"] == 0.6  # 3 of 5

    assert thursday["refund_deadlines"] == {
        "approved": 4,
        "refunded_on_time": 2,
        "refunded_late": 1,
        "owed_overdue": 1,
        "owed_at_risk": 0,
        "owed_in_time": 0,
        "on_time_rate": 0.5,  # 2 of (2 settled on time + 1 late + 1 overdue)
    }
    assert tuesday["refund_deadlines"]["owed_at_risk"] == 1
    assert (report["now"]["refunds_owed"], report["now"]["refunds_at_risk"], report["now"]["refunds_overdue"]) == (
        2,
        1,
        1,
    )

"""The desk's pure rules: priority, the SLA clocks and their state, auto-close. Tables, no DB."""

from __future__ import annotations

import pytest

from common.tests.support import CAL, H, at
from tickets.policy import (
    AT_RISK,
    BREACHED,
    HIGH,
    NORMAL,
    OK,
    Clocks,
    Targets,
    auto_close_due,
    can_rate,
    data_request_due,
    due_times,
    initial_priority,
    nearest_due,
    normalise_reply,
    reply_excerpt,
    reply_notice_mail,
    sla_state,
    sla_targets,
    thread_url,
)

# 보통: first reply in 9 business hours, next in 9, closed within 27.
NORMAL_TARGETS = Targets(first_response=9 * H, next_response=9 * H, resolution=27 * H)


@pytest.mark.parametrize(
    "category, refused, expected",
    [
        ("PAYMENT", False, (HIGH, "category")),
        ("ERROR", False, (HIGH, "category")),
        ("DELIVERY", False, (NORMAL, "")),
        ("CALLBACK", True, (HIGH, "refused_money_request")),  # a person asked for after a refused refund
        ("PAYMENT", True, (HIGH, "refused_money_request")),
        ("OTHER", False, (NORMAL, "")),
    ],
)
def test_initial_priority_rules(category, refused, expected):
    assert initial_priority(category=category, after_refused_money_request=refused) == expected


def test_targets_come_from_the_table_in_minutes_and_unknown_priorities_read_as_normal():
    table = {"NORMAL": {"first_response": 540, "next_response": 540, "resolution": 1620}}
    assert sla_targets("NORMAL", table) == NORMAL_TARGETS
    assert sla_targets("URGENT", table) == NORMAL_TARGETS


def test_due_times_skip_the_weekend_and_the_holiday_and_move_by_the_paused_time():
    first, resolution = due_times(
        created_at=at("2026-08-14T17:00"), priority="NORMAL", paused_s=0, targets=NORMAL_TARGETS, calendar=CAL
    )
    assert (first, resolution) == (at("2026-08-18T17:00"), at("2026-08-20T17:00"))
    _, later = due_times(
        created_at=at("2026-08-14T17:00"), priority="NORMAL", paused_s=2 * H, targets=NORMAL_TARGETS, calendar=CAL
    )
    assert later == at("2026-08-21T10:00")


def _clocks(status="OPEN", **fields) -> Clocks:
    base = {
        "created_at": at("2026-08-14T17:00"),
        "first_response_due_at": at("2026-08-18T17:00"),
        "first_responded_at": None,
        "next_response_due_at": None,
        "resolution_due_at": at("2026-08-20T17:00"),
        "answered_at": None,
        "closed_at": None,
    }
    return Clocks(status=status, **{**base, **fields})


def _answered(moment: str) -> Clocks:
    """Answered once, at `moment`: that reply was the first response and left the turn to the customer."""
    return _clocks("ANSWERED", first_responded_at=at(moment), answered_at=at(moment))


# Weeks after every due time: a paused or a closed ticket's state must not depend on the clock any more.
LONG_AFTER = at("2026-09-30T10:00")


@pytest.mark.parametrize(
    "clocks, now, expected",
    [
        (_clocks(), at("2026-08-14T17:30"), OK),
        # 2 business hours left of 9 (≤ 25%): at risk — counted in business time over the weekend and holiday.
        (_clocks(), at("2026-08-18T15:00"), AT_RISK),
        (_clocks(), at("2026-08-17T20:00"), OK),  # the holiday evening: the whole Tuesday is still ahead
        (_clocks(), at("2026-08-18T17:00"), BREACHED),
        # Answered: the first-response clock stopped; resolution runs.
        (_clocks(first_responded_at=at("2026-08-18T10:00")), at("2026-08-19T10:00"), OK),
        # A follow-up waiting for the next reply: its clock is the nearest.
        (
            _clocks(first_responded_at=at("2026-08-18T10:00"), next_response_due_at=at("2026-08-19T12:00")),
            at("2026-08-19T11:00"),
            AT_RISK,
        ),
        # Waiting on the customer: paused — the resolution clock as it stood at the answer, however long after.
        (_answered("2026-08-18T10:00"), LONG_AFTER, OK),
        (_answered("2026-08-20T16:00"), LONG_AFTER, AT_RISK),
        # Closed: the final verdict.
        (
            _clocks("CLOSED", first_responded_at=at("2026-08-18T10:00"), closed_at=at("2026-08-19T10:00")),
            LONG_AFTER,
            OK,
        ),
        (
            _clocks("CLOSED", first_responded_at=at("2026-08-18T17:30"), closed_at=at("2026-08-19T10:00")),
            LONG_AFTER,
            BREACHED,
        ),
    ],
)
def test_sla_state(clocks, now, expected):
    assert sla_state(clocks, now=now, targets=NORMAL_TARGETS, calendar=CAL, share=0.25) == expected


@pytest.mark.parametrize(
    "clocks, expected",
    [
        (_clocks(), at("2026-08-18T17:00")),
        (_clocks(first_responded_at=at("2026-08-18T10:00")), at("2026-08-20T17:00")),
        (
            _clocks(first_responded_at=at("2026-08-18T10:00"), next_response_due_at=at("2026-08-19T12:00")),
            at("2026-08-19T12:00"),
        ),
        (_clocks("ANSWERED", answered_at=at("2026-08-18T10:00")), None),  # nothing runs: sorted last
        (_clocks("CLOSED", closed_at=at("2026-08-18T10:00")), None),
    ],
)
def test_nearest_due_orders_the_list(clocks, expected):
    assert nearest_due(clocks) == expected


@pytest.mark.parametrize(
    "status, answered_at, now, expected",
    [
        ("ANSWERED", at("2026-08-10T10:00"), at("2026-08-17T10:00"), True),  # 7 days exactly
        ("ANSWERED", at("2026-08-10T10:00"), at("2026-08-17T09:59"), False),
        ("OPEN", at("2026-08-01T10:00"), at("2026-08-17T10:00"), False),  # the customer wrote back: open
        ("ANSWERED", None, at("2026-08-17T10:00"), False),
    ],
)
def test_auto_close_after_days_without_a_customer_reply(status, answered_at, now, expected):
    assert auto_close_due(status=status, answered_at=answered_at, now=now, after_days=7) is expected


def test_normalise_reply_ignores_line_endings_and_surrounding_space():
    assert normalise_reply("  안녕하세요\r\n감사합니다 \n") == "안녕하세요\n감사합니다"


# --- telling the customer, and rating -------------------------------------------------------------------------


def test_the_excerpt_is_one_line_cut_with_an_ellipsis():
    assert reply_excerpt("안녕하세요.\n\n  내일   도착합니다.") == "안녕하세요. 내일 도착합니다."
    long = reply_excerpt("가" * 200)
    assert len(long) == 120 and long.endswith("…")


def test_the_thread_url_names_the_ticket_on_the_chat_page():
    assert thread_url("https://cs.example.com/", "T00007") == "https://cs.example.com/?ticket=T00007"


def test_the_reply_mail_carries_the_name_the_number_and_the_link_only():
    subject, body = reply_notice_mail(
        name="박지훈", ticket_number="T00007", url="https://cs.example.com/?ticket=T00007"
    )
    assert "T00007" in subject
    assert body.startswith("박지훈님, 안녕하세요.") and "https://cs.example.com/?ticket=T00007" in body
    assert reply_notice_mail(name=" ", ticket_number="T1", url="u")[1].startswith("안녕하세요.")


@pytest.mark.parametrize(
    ("status", "rated", "allowed"),
    [("OPEN", False, False), ("ANSWERED", False, True), ("CLOSED", False, True), ("ANSWERED", True, False)],
)
def test_a_ticket_is_rated_once_when_answered_or_closed(status, rated, allowed):
    assert can_rate(status=status, rated=rated) is allowed


@pytest.mark.parametrize(
    ("received", "due"),
    [
        # 10 days from the day after: Mon 27 July → Thu 6 August, at closing.
        ("2026-07-27 10:00", "2026-08-06 18:00"),
        # The 10th day is a Saturday: the desk answers by the Friday before, never after the law's day.
        ("2026-07-29 15:00", "2026-08-07 18:00"),
        # The 10th day is a holiday (17 August here): the open day before it.
        ("2026-08-07 20:00", "2026-08-14 18:00"),
    ],
)
def test_a_data_request_is_due_by_closing_on_the_last_open_day_within_ten_days(received, due):
    assert data_request_due(at(received), CAL) == at(due)

"""Table-driven tests of the pure rules: no database."""

from datetime import date

import pytest

from actions import policy
from actions.models import ActionRecord
from common.clock import resolve_today
from common.tests.support import CAL, at

TODAY = date(2026, 7, 27)
DEMO = policy.Windows(return_days=7, defect_days=30)  # the demo shop's (정책 제2조)
D = lambda days: date.fromordinal(TODAY.toordinal() - days)  # noqa: E731 - delivered `days` ago


@pytest.mark.parametrize(
    "status, allowed",
    [
        ("PAID", True),
        ("PREPARING", True),
        ("SHIPPING", False),
        ("DELIVERED", False),
        ("CANCELLED", False),
        ("RETURNED", False),
    ],
)
def test_address_change_only_before_shipping(status, allowed):
    decision = policy.address_change_decision(status)
    assert decision.allowed is allowed
    if not allowed:
        assert decision.reason == f"이미 '{policy.status_label(status)}' 상태라 배송지를 바꿀 수 없습니다."


def test_address_change_refusal_on_shipping_quotes_the_seed():
    assert policy.address_change_decision("SHIPPING").reason == "이미 '배송중' 상태라 배송지를 바꿀 수 없습니다."


@pytest.mark.parametrize(
    "value, expected",
    [
        ("서울특별시 강남구 테헤란로 1, 101호", "서울특별시 강남구 테헤란로 1, 101호"),
        ("  서울시   중구  세종대로 110  ", "서울시 중구 세종대로 110"),
        ("", None),
        ("   ", None),
        ("서울", None),
        ("가" * 201, None),
        (None, None),
        (12345, None),
        ("[주소]", None),  # a mask the model copied from a masked prompt
        ("[주소] 101동 1502호", None),
        ("서울시 중구 세종대로 110, 연락처 [전화번호]", None),
    ],
)
def test_address_is_non_empty_and_of_sane_length(value, expected):
    address, problem = policy.normalize_address(value)
    assert address == expected
    assert bool(problem) is (expected is None)


@pytest.mark.parametrize(
    "category, days, allowed, needs_clarification",
    [
        ("CHANGE_OF_MIND", 0, True, False),
        ("CHANGE_OF_MIND", 7, True, False),
        ("CHANGE_OF_MIND", 8, False, False),
        ("DEFECT", 8, True, False),
        ("DEFECT", 30, True, False),
        ("DEFECT", 31, False, False),
        ("WRONG_ITEM", 30, True, False),
        ("WRONG_ITEM", 31, False, False),
        ("UNCLEAR", 2, False, True),
        # Past the longest window no reason could help: refused rather than asked about.
        ("UNCLEAR", 31, False, False),
    ],
)
def test_exchange_window_by_reason_category(category, days, allowed, needs_clarification):
    decision = policy.exchange_decision(
        status="DELIVERED", delivered_at=D(days), today=TODAY, reason_category=category, windows=DEMO
    )
    assert (decision.allowed, decision.needs_clarification) == (allowed, needs_clarification)
    assert decision.days_since_delivery == days
    if not allowed and not needs_clarification:
        limit = 7 if category == "CHANGE_OF_MIND" else 30
        assert decision.reason == f"배송 완료 후 {days}일이 지나 교환 가능 기간({limit}일)을 넘었습니다."


@pytest.mark.parametrize("status", ["PAID", "PREPARING", "SHIPPING", "CANCELLED", "RETURNED"])
def test_exchange_needs_a_delivered_order(status):
    decision = policy.exchange_decision(
        status=status, delivered_at=None, today=TODAY, reason_category="DEFECT", windows=DEMO
    )
    assert not decision.allowed and "교환" in decision.reason


@pytest.mark.parametrize(
    "status, category, days, allowed, kind, needs_clarification",
    [
        # Before shipping: a cancel request, whatever the reason (even UNCLEAR).
        ("PAID", "UNCLEAR", None, True, "CANCEL", False),
        ("PREPARING", "UNCLEAR", None, True, "CANCEL", False),
        ("PREPARING", "CHANGE_OF_MIND", None, True, "CANCEL", False),
        # Shipping: refused, explained.
        ("SHIPPING", "DEFECT", None, False, "", False),
        # Delivered: the window by category; UNCLEAR asks instead of recording.
        ("DELIVERED", "CHANGE_OF_MIND", 2, True, "REFUND", False),
        ("DELIVERED", "CHANGE_OF_MIND", 7, True, "REFUND", False),
        ("DELIVERED", "CHANGE_OF_MIND", 8, False, "REFUND", False),
        ("DELIVERED", "CHANGE_OF_MIND", 26, False, "REFUND", False),
        ("DELIVERED", "DEFECT", 26, True, "REFUND", False),
        ("DELIVERED", "DEFECT", 30, True, "REFUND", False),
        ("DELIVERED", "DEFECT", 31, False, "REFUND", False),
        ("DELIVERED", "WRONG_ITEM", 31, False, "REFUND", False),
        ("DELIVERED", "UNCLEAR", 2, False, "REFUND", True),
        ("DELIVERED", "UNCLEAR", 31, False, "REFUND", False),
        # Closed orders.
        ("CANCELLED", "DEFECT", None, False, "", False),
        ("RETURNED", "DEFECT", 3, False, "", False),
    ],
)
def test_refund_decision_table(status, category, days, allowed, kind, needs_clarification):
    delivered = D(days) if days is not None else None
    decision = policy.refund_decision(
        status=status, delivered_at=delivered, today=TODAY, reason_category=category, windows=DEMO
    )
    assert decision.allowed is allowed
    assert decision.kind == kind
    assert decision.needs_clarification is needs_clarification


def test_refund_rejected_26_days_after_delivery_for_change_of_mind():
    decision = policy.refund_decision(
        status="DELIVERED",
        delivered_at=date(2026, 7, 1),
        today=TODAY,
        reason_category="CHANGE_OF_MIND",
        windows=DEMO,
    )
    assert decision.reason == "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다."


def test_refund_on_shipping_order_explains_why():
    decision = policy.refund_decision(
        status="SHIPPING", delivered_at=None, today=TODAY, reason_category="DEFECT", windows=DEMO
    )
    assert "배송중" in decision.reason and "반품" in decision.reason


@pytest.mark.parametrize(
    "value, expected",
    [
        ("단순변심", "CHANGE_OF_MIND"),
        ("CHANGE_OF_MIND", "CHANGE_OF_MIND"),
        ("상품하자", "DEFECT"),
        ("오배송", "WRONG_ITEM"),
        ("확인필요", "UNCLEAR"),
        (" 상품하자 ", "DEFECT"),
        ("불량", None),
        ("", None),
        (None, None),
        (3, None),
    ],
)
def test_reason_category_accepts_code_or_korean_label_only(value, expected):
    assert policy.parse_reason_category(value) == expected


@pytest.mark.parametrize(
    "kind, status_now, days, category, allowed",
    [
        ("CANCEL", "PAID", None, "UNCLEAR", True),
        ("CANCEL", "PREPARING", None, "UNCLEAR", True),
        ("CANCEL", "SHIPPING", None, "UNCLEAR", False),  # shipped since the request
        ("CANCEL", "DELIVERED", 1, "UNCLEAR", False),
        ("REFUND", "DELIVERED", 5, "CHANGE_OF_MIND", True),
        ("REFUND", "DELIVERED", 9, "CHANGE_OF_MIND", False),
        ("REFUND", "DELIVERED", 29, "DEFECT", True),
        ("REFUND", "RETURNED", 5, "DEFECT", False),
        ("ADDRESS_CHANGE", "PAID", None, "", False),
    ],
)
def test_approval_rechecks_the_order_as_it_is_now(kind, status_now, days, category, allowed):
    decision = policy.approval_decision(
        kind=kind,
        status_now=status_now,
        delivered_at=D(days) if days is not None else None,
        requested_on=TODAY,
        reason_category=category,
        windows=DEMO,
    )
    assert decision.allowed is allowed
    if kind == "CANCEL" and status_now == "SHIPPING":
        assert "배송중" in decision.reason


def test_window_days_by_category():
    assert policy.window_days("CHANGE_OF_MIND", DEMO) == 7
    assert policy.window_days("DEFECT", DEMO) == policy.window_days("WRONG_ITEM", DEMO) == 30


@pytest.mark.parametrize(
    ("category", "days", "allowed"),
    [
        ("CHANGE_OF_MIND", 14, True),
        ("CHANGE_OF_MIND", 15, False),
        ("DEFECT", 60, True),
        ("DEFECT", 61, False),
        ("UNCLEAR", 61, False),
    ],
)
def test_another_shops_windows_are_what_the_rules_count_to(category, days, allowed):
    windows = policy.Windows(return_days=14, defect_days=60)
    decision = policy.refund_decision(
        status="DELIVERED", delivered_at=D(days), today=TODAY, reason_category=category, windows=windows
    )
    assert decision.allowed is allowed
    if not allowed and category != "UNCLEAR":
        assert f"({14 if category == 'CHANGE_OF_MIND' else 60}일)" in decision.reason


def test_before_shipping_set_is_paid_and_preparing():
    assert policy.BEFORE_SHIPPING == {"PAID", "PREPARING"}


@pytest.mark.parametrize(
    "cs_today, now_iso, expected",
    [
        ("2026-07-27", "2026-11-29T10:00:00+00:00", date(2026, 7, 27)),
        (None, "2026-11-29T14:59:00+00:00", date(2026, 11, 29)),
        (None, "2026-11-29T15:00:00+00:00", date(2026, 11, 30)),  # midnight in Seoul
        ("", "2026-11-29T16:00:00+00:00", date(2026, 11, 30)),
    ],
)
def test_today_comes_from_cs_today_or_seoul_date(cs_today, now_iso, expected):
    from datetime import datetime

    assert resolve_today(cs_today, datetime.fromisoformat(now_iso)) == expected


def test_money_kinds_are_refund_and_cancel():
    assert set(ActionRecord.MONEY_KINDS) == {"REFUND", "CANCEL"}


# --- the statutory refund deadline (전자상거래법 제18조: 3 business days) --------------------------------------------
@pytest.mark.parametrize(
    "approved_at, deadline",
    [
        ("2026-08-13T15:00", date(2026, 8, 19)),  # Thu → Fri, (weekend, holiday), Tue, Wed
        ("2026-08-13T23:30", date(2026, 8, 19)),  # the approval day never counts, however late
        ("2026-08-15T11:00", date(2026, 8, 20)),  # approved on a Saturday
        ("2026-08-10T09:00", date(2026, 8, 13)),  # an ordinary week
    ],
)
def test_refund_deadline_is_the_third_business_day_after_the_approval(approved_at, deadline):
    assert policy.refund_deadline(approved_at=at(approved_at), calendar=CAL) == deadline


@pytest.mark.parametrize(
    "today, settled_on, state",
    [
        (date(2026, 8, 14), None, policy.DEADLINE_OK),  # Friday: Tuesday and Wednesday still ahead
        (date(2026, 8, 17), None, policy.DEADLINE_OK),  # the holiday: two business days left
        (date(2026, 8, 18), None, policy.DEADLINE_AT_RISK),  # one business day before
        (date(2026, 8, 19), None, policy.DEADLINE_AT_RISK),  # the last day
        (date(2026, 8, 20), None, policy.DEADLINE_OVERDUE),
        (date(2026, 8, 25), date(2026, 8, 19), policy.DEADLINE_MET),
        (date(2026, 8, 25), date(2026, 8, 21), policy.DEADLINE_LATE),
    ],
)
def test_refund_deadline_state(today, settled_on, state):
    result = policy.refund_deadline_state(deadline=date(2026, 8, 19), today=today, settled_on=settled_on, calendar=CAL)
    assert result == state


@pytest.mark.parametrize(
    ("kind", "noun"),
    [
        (ActionRecord.Kind.REFUND, "환불"),
        (ActionRecord.Kind.CANCEL, "주문 취소"),
        (ActionRecord.Kind.EXCHANGE, None),
        (ActionRecord.Kind.ADDRESS_CHANGE, None),
    ],
)
def test_a_money_request_is_named_by_its_noun_and_other_requests_by_none(kind, noun):
    assert policy.money_kind_noun(kind) == noun

"""`metrics_compute` on the hand-made dataset (see dataset.py): every figure, computed by hand."""

from __future__ import annotations

from datetime import date

import pytest

from chat.tools import tool_error_label, tool_label
from metrics.selectors import csat_low_list, metrics_compute
from metrics.tests.dataset import REFUSED_7_DAYS, REFUSED_ARGS, build_dataset
from tickets.models import Ticket

pytestmark = pytest.mark.django_db

CATEGORIES = [
    ("DELIVERY", "배송"),
    ("EXCHANGE_RETURN", "교환/반품"),
    ("PAYMENT", "결제"),
    ("ACCOUNT", "계정"),
    ("ERROR", "오류"),
    ("COMPENSATION", "보상"),
    ("CALLBACK", "상담원연결"),
    ("AUTO_REVIEW", "자동처리 재검토"),
    ("OTHER", "기타"),
]


def categories(**decided: tuple[int, int, int, float]) -> list[dict]:
    """(decided, applied, rejected, rejection_rate) for the categories named; the others decided nothing."""
    rows = []
    for code, label in CATEGORIES:
        n, applied, rejected, rate = decided.get(code, (0, 0, 0, None))
        rows.append(
            {"category": code, "label": label, "decided": n, "applied": applied, "rejected": rejected,
             "rejection_rate": rate}
        )  # fmt: skip
    return rows


def latency(n: int, median: float | None, p90: float | None) -> dict:
    return {"n": n, "median": median, "p90": p90}


def stages(draft: int = 0, confidence: int = 0) -> dict:
    return {"draft": draft, "qa": 0, "confidence": confidence, "tags": 0, "diagnosis": 0}


def kinds(refund: tuple[int, int, int], cancel: tuple[int, int, int]) -> list[dict]:
    """(requested, approved, rejected) per kind."""
    return [
        {"kind": "REFUND", "label": "환불요청", "requested": refund[0], "approved": refund[1], "rejected": refund[2]},
        {
            "kind": "CANCEL",
            "label": "주문취소요청",
            "requested": cancel[0],
            "approved": cancel[1],
            "rejected": cancel[2],
        },
    ]


def outcomes(ok: int, bounded: int, model_failed: int, claim_blocked: int) -> list[dict]:
    return [
        {"outcome": "OK", "label": "정상", "count": ok},
        {"outcome": "BOUNDED", "label": "도구 호출 한도 도달", "count": bounded},
        {"outcome": "MODEL_FAILED", "label": "모델 장애(티켓 접수)", "count": model_failed},
        {"outcome": "CLAIM_BLOCKED", "label": "환불 약속 차단(코드 답변)", "count": claim_blocked},
    ]


def sources(agent: int, chat_failure: int) -> list[dict]:
    return [
        {"source": "AGENT", "label": "채팅 에이전트", "count": agent},
        {"source": "CHAT_FAILURE", "label": "채팅 장애 접수", "count": chat_failure},
    ]


def tool(name: str, calls: int, ok: int, refused: int, clarified: int = 0) -> dict:
    return {
        "tool": name,
        "label": tool_label(name),
        "calls": calls,
        "ok": ok,
        "clarified": clarified,
        "refused": refused,
    }


def sla_tickets(created: int, first: dict, met: int, missed: int, resolution_met: int) -> dict:
    """The tickets with SLA clocks (S1, S2 in dataset.py; the other rows have none and are not counted)."""
    return {
        "created": created,
        "first_response_seconds": first,
        "sla": {
            "first_response_met": met,
            "first_response_missed": missed,
            "first_response_attainment": met / (met + missed),
            "resolution_met": resolution_met,
            "resolution_missed": 0,
            "resolution_attainment": 1.0 if resolution_met else None,
        },
    }


def deadlines(approved: int = 0, on_time: int = 0) -> dict:
    """Approved money against the statutory deadline: the dataset's one approval is the built-in shop's, refunded
    at approval (on time)."""
    return {
        "approved": approved,
        "refunded_on_time": on_time,
        "refunded_late": 0,
        "owed_overdue": 0,
        "owed_at_risk": 0,
        "owed_in_time": 0,
        "on_time_rate": 1.0 if on_time else None,
    }


def refusal(name: str, error: str, reason: str, count: int) -> dict:
    return {
        "tool": name,
        "label": tool_label(name),
        "error": error,
        "error_label": tool_error_label(error),
        "reason": reason,
        "count": count,
    }


def csat(**scores_by_category: dict[int, int]) -> dict:
    """The CSAT section from {category: {score: n}} (the dataset's ratings), computed the long way."""

    def numbers(scores: dict[int, int]) -> dict:
        rated = sum(scores.values())
        return {
            "rated": rated,
            "average": round(sum(k * n for k, n in scores.items()) / rated, 4) if rated else None,
            "satisfied_share": round(sum(n for k, n in scores.items() if k >= 4) / rated, 4) if rated else None,
            "low": sum(n for k, n in scores.items() if k <= 2),
            "by_score": {str(k): scores.get(k, 0) for k in range(1, 6)},
        }

    overall: dict[int, int] = {}
    for scores in scores_by_category.values():
        for k, n in scores.items():
            overall[k] = overall.get(k, 0) + n
    return {
        **numbers(overall),
        "by_category": [
            {"category": c.value, "label": c.label, **numbers(scores_by_category.get(c.value, {}))}
            for c in Ticket.Category
        ],
    }


# D1 = 2026-07-26 ---------------------------------------------------------------------------------
DAY1 = {
    "drafts": {
        "created": 3,  # d1, d2, d8
        "latency_seconds": {
            # nearest rank: p50 → rank ceil(0.5·n), p90 → rank ceil(0.9·n), 1-based in sorted order
            "to_draft": latency(3, 3.0, 4.0),  # [2.5, 3, 4]: p50 rank 2 → 3; p90 rank ceil(2.7)=3 → 4
            "to_qa": latency(3, 7.0, 10.0),  # [5, 7, 10]
            "to_confidence": latency(3, 9.0, 12.0),  # [8, 9, 12]
        },
        "failed": 0,
        "failed_by_stage": stages(),
        "runs": 4,  # 1 + 2 + 1
        "retries": 1,  # (1-1) + (2-1) + (1-1)
    },
    "decisions": {  # decided on D1: d1 applied unchanged (배송), d8 rejected (오류)
        "decided": 2,
        "applied": 1,
        "rejected": 1,
        "adoption_rate": 0.5,  # 1 / (1 + 1)
        "unchanged": 1,
        "edited": 0,
        "overridden": 0,
        "unchanged_share": 1.0,
        "edited_share": 0.0,
        "avg_edit_ratio": 0.0,
        "by_category": categories(DELIVERY=(1, 1, 0, 0.0), ERROR=(1, 0, 1, 1.0)),
    },
    "dead_letters": {"total": 1, "unresolved": 0},
    "approvals": {
        "requested": 2,  # REFUND 10:00, CANCEL 20:00
        "decided": 1,
        "approved": 1,
        "rejected": 0,
        "approval_rate": 1.0,
        "decision_seconds": latency(1, 1800.0, 1800.0),  # 10:00 → 10:30
        "by_kind": kinds(refund=(1, 1, 0), cancel=(1, 0, 0)),
    },
    "chat": {
        "turns": 2,  # the OK reply and the MODEL_FAILED reply; the customer message is not a reply
        "outcomes": outcomes(ok=1, bounded=0, model_failed=1, claim_blocked=0),
        "claims_blocked": 0,
        "claim_block_rate": 0.0,
        "tool_calls": 2,
        "refused": 1,
        "refusal_rate": 0.5,
        "clarifications": 0,
        "by_tool": [tool("get_my_orders", 1, 1, 0), tool("request_refund", 1, 0, 1)],
        "refusal_reasons": [refusal("request_refund", "", REFUSED_7_DAYS, 1)],
        "escalations": 1,  # T6 (CHAT_FAILURE)
        "escalation_rate": 0.5,  # 1 / 2 replies
        "escalations_by_source": sources(agent=0, chat_failure=1),
    },
    "tickets": sla_tickets(1, latency(1, 3600.0, 3600.0), met=1, missed=0, resolution_met=0),  # S1
    "refund_deadlines": deadlines(approved=1, on_time=1),  # the REFUND approved at 10:30
    "csat": csat(DELIVERY={5: 1}),  # S1
}

# D2 = 2026-07-27 ---------------------------------------------------------------------------------
DAY2 = {
    "drafts": {
        "created": 5,  # d3 (00:30 KST = D1 15:30 UTC), d4, d5, d6, d7
        "latency_seconds": {
            "to_draft": latency(3, 3.0, 6.0),  # [1.25, 3, 6]: rank 2 → 3, rank 3 → 6
            "to_qa": latency(2, 3.0, 9.0),  # [3, 9]: rank 1 → 3, rank ceil(1.8)=2 → 9
            "to_confidence": latency(1, 4.0, 4.0),  # [4]
        },
        "failed": 2,  # d3 (confidence FAILED), d4 (status FAILED)
        "failed_by_stage": stages(draft=1, confidence=1),
        "runs": 6,  # 1 + 3 + 1 + 1 + 0
        "retries": 2,  # (3-1) for d4; d7's 0 attempts count 0, not -1
    },
    "decisions": {  # decided on D2: d2 edited 0.3, d3 rejected, d5 edited 0.5 (all 배송)
        "decided": 3,
        "applied": 2,
        "rejected": 1,
        "adoption_rate": 0.6667,  # 2 / 3
        "unchanged": 0,
        "edited": 2,
        "overridden": 1,  # d2, sent with an override reason
        "unchanged_share": 0.0,
        "edited_share": 1.0,
        "avg_edit_ratio": 0.4,  # (0.3 + 0.5) / 2
        "by_category": categories(DELIVERY=(3, 2, 1, 0.3333)),
    },
    "dead_letters": {"total": 1, "unresolved": 1},
    "approvals": {
        "requested": 2,  # REFUND 09:00, REFUND 15:00 (pending)
        "decided": 2,
        "approved": 0,
        "rejected": 2,
        "approval_rate": 0.0,
        "decision_seconds": latency(2, 600.0, 43200.0),  # [600 (09:00→09:10), 43200 (D1 20:00→D2 08:00)]
        "by_kind": kinds(refund=(2, 0, 1), cancel=(0, 0, 1)),
    },
    "chat": {
        "turns": 2,  # the CLAIM_BLOCKED reply at 00:10 KST (D1 15:10 UTC) and the BOUNDED one
        "outcomes": outcomes(ok=0, bounded=1, model_failed=0, claim_blocked=1),
        "claims_blocked": 1,
        "claim_block_rate": 0.5,  # 1 / 2 replies
        "tool_calls": 3,
        "refused": 2,
        "refusal_rate": 0.6667,  # 2 / 3
        "clarifications": 0,
        "by_tool": [
            tool("change_shipping_address", 1, 0, 1),
            tool("create_ticket", 1, 1, 0),
            tool("request_refund", 1, 0, 1),
        ],
        "refusal_reasons": [  # equal counts: ordered by tool
            refusal("change_shipping_address", "invalid_arguments", REFUSED_ARGS, 1),
            refusal("request_refund", "", REFUSED_7_DAYS, 1),
        ],
        "escalations": 1,  # T5 (AGENT); the STAFF ticket is not an escalation
        "escalation_rate": 0.5,  # 1 / 2 replies
        "escalations_by_source": sources(agent=1, chat_failure=0),
    },
    "tickets": sla_tickets(1, latency(1, 7200.0, 7200.0), met=0, missed=1, resolution_met=1),  # S2
    "refund_deadlines": deadlines(),  # D2's decisions are rejections
    "csat": csat(DELIVERY={2: 1}, ERROR={1: 1}),  # S2; T4 at 00:20 KST (D1 UTC)
}

OVERALL = {
    "drafts": {
        "created": 8,
        "latency_seconds": {
            "to_draft": latency(6, 3.0, 6.0),  # [1.25, 2.5, 3, 3, 4, 6]: rank 3 → 3; rank ceil(5.4)=6 → 6
            "to_qa": latency(5, 7.0, 10.0),  # [3, 5, 7, 9, 10]: rank ceil(2.5)=3 → 7; rank ceil(4.5)=5 → 10
            "to_confidence": latency(4, 8.0, 12.0),  # [4, 8, 9, 12]: rank 2 → 8; rank ceil(3.6)=4 → 12
        },
        "failed": 2,
        "failed_by_stage": stages(draft=1, confidence=1),
        "runs": 10,  # 4 + 6
        "retries": 3,  # 1 + 2
    },
    "decisions": {
        "decided": 5,
        "applied": 3,
        "rejected": 2,
        "adoption_rate": 0.6,  # 3 / (3 + 2)
        "unchanged": 1,
        "edited": 2,
        "overridden": 1,
        "unchanged_share": 0.3333,  # 1 / 3
        "edited_share": 0.6667,  # 2 / 3
        "avg_edit_ratio": 0.2667,  # (0.0 + 0.3 + 0.5) / 3
        "by_category": categories(DELIVERY=(4, 3, 1, 0.25), ERROR=(1, 0, 1, 1.0)),
    },
    "dead_letters": {"total": 2, "unresolved": 1},
    "approvals": {
        "requested": 4,
        "decided": 3,
        "approved": 1,
        "rejected": 2,
        "approval_rate": 0.3333,  # 1 / 3
        "decision_seconds": latency(3, 1800.0, 43200.0),  # [600, 1800, 43200]: rank 2, rank 3
        "by_kind": kinds(refund=(3, 1, 1), cancel=(1, 0, 1)),
    },
    "chat": {
        "turns": 4,
        "outcomes": outcomes(ok=1, bounded=1, model_failed=1, claim_blocked=1),
        "claims_blocked": 1,
        "claim_block_rate": 0.25,  # 1 / 4 replies
        "tool_calls": 5,
        "refused": 3,
        "refusal_rate": 0.6,  # 3 / 5
        "clarifications": 0,
        "by_tool": [
            tool("change_shipping_address", 1, 0, 1),
            tool("create_ticket", 1, 1, 0),
            tool("get_my_orders", 1, 1, 0),
            tool("request_refund", 2, 0, 2),
        ],
        "refusal_reasons": [
            refusal("request_refund", "", REFUSED_7_DAYS, 2),  # most frequent first
            refusal("change_shipping_address", "invalid_arguments", REFUSED_ARGS, 1),
        ],
        "escalations": 2,
        "escalation_rate": 0.5,  # 2 / 4 replies
        "escalations_by_source": sources(agent=1, chat_failure=1),
    },
    # [3600, 7200]: p50 rank 1 → 3600, p90 rank ceil(1.8)=2 → 7200
    "tickets": sla_tickets(2, latency(2, 3600.0, 7200.0), met=1, missed=1, resolution_met=1),
    "refund_deadlines": deadlines(approved=1, on_time=1),
    # 3 ratings: average 8 / 3, one of them 4–5 points, two at most 2
    "csat": csat(DELIVERY={5: 1, 2: 1}, ERROR={1: 1}),
}

NOW = {  # a snapshot: not limited by since/until
    "pending_approvals": 1,
    "pending_by_kind": [
        {"kind": "REFUND", "label": "환불요청", "count": 1},
        {"kind": "CANCEL", "label": "주문취소요청", "count": 0},
    ],
    "oldest_pending_since": "2026-07-27T15:00:00+09:00",
    "unresolved_dead_letters": 1,
    # Approved money not yet back (a shop still on it, or failed): none in the dataset.
    "refunds_owed": 0,
    "refunds_at_risk": 0,
    "refunds_overdue": 0,
}

EXPECTED = {
    "range": {"since": None, "until": None, "timezone": "Asia/Seoul", "percentile_method": "nearest-rank"},
    "now": NOW,
    "overall": OVERALL,
    "days": [{"date": "2026-07-26", **DAY1}, {"date": "2026-07-27", **DAY2}],
}


def test_every_figure_matches_the_hand_computed_values():
    build_dataset()
    report = metrics_compute(since=None, until=None)
    # Section by section first, so that a failure points at the figure that is wrong.
    assert report["now"] == NOW
    assert report["days"][0] == EXPECTED["days"][0]
    assert report["days"][1] == EXPECTED["days"][1]
    assert report["overall"] == OVERALL
    assert report == EXPECTED


@pytest.mark.parametrize("date, section", [("2026-07-26", DAY1), ("2026-07-27", DAY2)])
def test_a_one_day_range_reports_exactly_that_day(date, section):
    build_dataset()
    from datetime import date as Date

    day = Date.fromisoformat(date)
    report = metrics_compute(since=day, until=day)
    assert report["overall"] == section
    assert report["days"] == [{"date": date, **section}]
    assert report["now"] == NOW  # the snapshot ignores the range
    assert report["range"]["since"] == report["range"]["until"] == date


def test_an_open_range_lists_every_day_with_gaps_filled():
    build_dataset()
    report = metrics_compute(since=date(2026, 7, 24), until=None)
    assert [day["date"] for day in report["days"]] == ["2026-07-24", "2026-07-25", "2026-07-26", "2026-07-27"]
    assert report["days"][0]["drafts"]["created"] == 0
    assert report["days"][0]["decisions"]["adoption_rate"] is None
    assert report["overall"] == OVERALL


def test_an_empty_database_reports_zeros_and_nones():
    report = metrics_compute(since=None, until=None)
    assert report["days"] == []
    overall = report["overall"]
    assert overall["drafts"]["created"] == 0
    assert overall["drafts"]["latency_seconds"]["to_draft"] == {"n": 0, "median": None, "p90": None}
    assert overall["decisions"]["adoption_rate"] is None
    assert overall["chat"]["by_tool"] == []
    assert report["now"]["pending_approvals"] == 0 and report["now"]["oldest_pending_since"] is None


def test_since_after_until_is_refused():
    from datetime import date

    with pytest.raises(ValueError):
        metrics_compute(since=date(2026, 7, 27), until=date(2026, 7, 26))


def test_low_ratings_are_listed_newest_first_within_the_range():
    build_dataset()
    listed = csat_low_list(since=None, until=None)
    assert [(row["score"], row["comment"], row["label"], row["rated_at"]) for row in listed] == [
        (2, "늦었어요", "배송", "2026-07-27T13:30:00+09:00"),
        (1, "해결이 안 됐어요", "오류", "2026-07-27T00:20:00+09:00"),
    ]
    assert all(row["ticket_id"].startswith("T") for row in listed)
    assert csat_low_list(since=date(2026, 7, 26), until=date(2026, 7, 26)) == []  # S1's 5 is not low

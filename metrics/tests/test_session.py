"""`cs_metrics --format json` on the demo data after a scripted session: seed_demo, a customer's chat
through the API (offline model), operators deciding drafts and a refund. Every figure is checked against
what the session did, counted by hand below."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from drafts.models import Draft
from drafts.policy import edit_ratio
from drafts.services import draft_apply, draft_reject

pytestmark = pytest.mark.django_db(transaction=True)

EDIT = " 추가로 궁금하신 점은 언제든 문의해 주세요."


def _say(api, message, conversation_id=None):
    payload = {"message": message} | ({"conversation_id": conversation_id} if conversation_id else {})
    response = api.post("/api/chat/", payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_metrics_after_a_scripted_session(offline_model, c003_api, operator_user):
    call_command("seed_demo", "--no-progress")  # 5 inquiries → 6 drafts (one superseded by a follow-up)

    # The customer's session: 5 turns, 6 tool calls (2 refused by code), 1 escalation to a person.
    _say(c003_api, "HR20260726002 배송지를 서울특별시 중구 세종대로 110, 3층으로 바꿔 주세요")  # ok
    _say(c003_api, "HR20260724005 배송지를 서울특별시 중구 세종대로 110, 3층으로 바꿔 주세요")  # refused: 배송중
    # get_my_orders, then request_refund without a reason: refused by the tool, which asks for it.
    asked = _say(c003_api, "텀블러 환불해 주세요")
    _say(c003_api, "상품하자", asked["conversation_id"])  # request_refund → 승인대기
    _say(c003_api, "상담원 연결해 주세요")  # create_ticket → a ticket, and its draft (7th)

    # Operators: apply one unchanged, one edited, reject one; approve the refund.
    live = list(Draft.objects.filter(status="GENERATED").order_by("id"))
    assert len(live) == 6
    draft_apply(draft_id=live[0].pk, final_body=None, actor=operator_user)
    edited = draft_apply(draft_id=live[1].pk, final_body=live[1].answer + EDIT, actor=operator_user)
    draft_reject(draft_id=live[2].pk, actor=operator_user)
    from actions.models import ActionRecord

    call_command("decide", ActionRecord.objects.get(status="PENDING").number, "--approve", "--by", "operator")

    out = StringIO()
    call_command("cs_metrics", "--format", "json", stdout=out)
    report = json.loads(out.getvalue())
    overall = report["overall"]

    drafts = overall["drafts"]
    assert (drafts["created"], drafts["failed"], drafts["runs"], drafts["retries"]) == (7, 0, 7, 0)
    for stage in ("to_draft", "to_qa", "to_confidence"):
        assert drafts["latency_seconds"][stage]["n"] == 7
        assert 0 <= drafts["latency_seconds"][stage]["median"] <= drafts["latency_seconds"][stage]["p90"]

    decisions = overall["decisions"]
    expected_ratio = edit_ratio(live[1].answer, live[1].answer + EDIT)
    assert edited.edit_ratio == expected_ratio == round(len(EDIT) / len(live[1].answer + EDIT), 4)
    assert {k: decisions[k] for k in ("decided", "applied", "rejected", "unchanged", "edited")} == {
        "decided": 3,
        "applied": 2,
        "rejected": 1,
        "unchanged": 1,
        "edited": 1,
    }
    assert decisions["adoption_rate"] == round(2 / 3, 4)
    assert (decisions["unchanged_share"], decisions["edited_share"]) == (0.5, 0.5)
    assert decisions["avg_edit_ratio"] == pytest.approx((0.0 + expected_ratio) / 2, abs=1e-4)
    by_category = {row["category"]: row for row in decisions["by_category"]}
    rejected_category = live[2].ticket.category
    assert by_category[rejected_category]["rejected"] == 1

    assert overall["dead_letters"] == {"total": 0, "unresolved": 0}

    approvals = overall["approvals"]
    assert (approvals["requested"], approvals["approved"], approvals["rejected"], approvals["approval_rate"]) == (
        1,
        1,
        0,
        1.0,
    )
    assert approvals["decision_seconds"]["n"] == 1

    chat = overall["chat"]
    # The reason question is counted apart from refusals: it asks, it does not refuse.
    assert (chat["turns"], chat["tool_calls"], chat["refused"], chat["clarifications"], chat["escalations"]) == (
        5,
        6,
        1,
        1,
        1,
    )
    assert (chat["refusal_rate"], chat["escalation_rate"]) == (round(1 / 6, 4), round(1 / 5, 4))
    tools = {row["tool"]: (row["calls"], row["ok"], row["clarified"], row["refused"]) for row in chat["by_tool"]}
    assert tools == {
        "change_shipping_address": (2, 1, 0, 1),  # HR20260726002 ok; HR20260724005 is 배송중
        "get_my_orders": (1, 1, 0, 0),
        "request_refund": (2, 1, 1, 0),  # without a reason (the reason question), then 상품하자
        "create_ticket": (1, 1, 0, 0),
    }
    reasons = {(r["tool"], r["reason"]) for r in chat["refusal_reasons"]}
    assert reasons == {("change_shipping_address", "이미 '배송중' 상태라 배송지를 바꿀 수 없습니다.")}
    assert (report["now"]["pending_approvals"], report["now"]["unresolved_dead_letters"]) == (0, 0)

"""The offline model through the real gateway against the real tool registry: a full agent loop
the way chat/agent.py runs it, on the demo shop (customer C003)."""

from __future__ import annotations

import json

import pytest

from actions.models import ActionRecord
from chat.tools import make_action_tools
from llm.client import chat
from llm.fence import fence_customer_text
from llm.masking import KEEP_KEY
from llm.models import LLMCall

SYSTEM = {"role": "system", "content": "당신은 쇼핑몰 상담 에이전트입니다."}


def run_turn(history: list[dict], text: str, registry) -> str:
    """Append one customer turn and the agent's tool rounds to `history`; return the final reply.
    As chat.prompts does: the current message may show a street address (the one masking exception),
    earlier ones may not."""
    asked = {"role": "user", "content": fence_customer_text(text)}
    turn = [*history, {**asked, KEEP_KEY: ["address"]}]
    for _ in range(4):
        result = chat(purpose="chat", messages=[SYSTEM, *turn], tools=registry.specs())
        if not result.tool_calls:
            history += [asked, {"role": "assistant", "content": result.content}]
            return result.content
        turn.append(result.message)
        for tc in result.tool_calls:
            output = registry.call(tc["function"]["name"], tc["function"]["arguments"])
            turn.append({"role": "tool", "tool_call_id": tc["id"], "content": json.dumps(output, ensure_ascii=False)})
    raise AssertionError("agent did not finish within 4 rounds")


@pytest.mark.django_db
def test_refund_asks_for_reason_then_registers_pending_request(offline_model, c003):
    registry = make_action_tools(c003)
    history: list[dict] = []

    first = run_turn(history, "운동화 환불해 주세요", registry)

    assert "HR20260721001" in first and "단순변심 / 상품하자 / 오배송" in first
    assert not ActionRecord.objects.filter(order_id="HR20260721001").exists()

    second = run_turn(history, "상품하자", registry)

    record = ActionRecord.objects.get(order_id="HR20260721001")
    assert record.kind == ActionRecord.Kind.REFUND
    assert record.status == ActionRecord.Status.PENDING
    assert f"처리번호 {record.number}" in second and "승인대기" in second
    assert LLMCall.objects.filter(outcome=LLMCall.Outcome.OK).count() == 5
    assert not LLMCall.objects.exclude(outcome=LLMCall.Outcome.OK).exists()


@pytest.mark.django_db
def test_address_change_is_done_directly(offline_model, c003):
    registry = make_action_tools(c003)

    reply = run_turn([], "이어폰 배송지를 서울시 마포구 양화로 45 101호로 바꿔 주세요", registry)

    record = ActionRecord.objects.get(order_id="HR20260726002")
    assert record.kind == ActionRecord.Kind.ADDRESS_CHANGE
    assert record.status == ActionRecord.Status.DONE
    assert record.order.shipping_address == "서울시 마포구 양화로 45 101호"
    assert f"처리번호 {record.number} (상태: 완료)" in reply


@pytest.mark.django_db
def test_shipped_order_address_change_is_refused_by_the_tool(offline_model, c003):
    registry = make_action_tools(c003)

    reply = run_turn([], "HR20260724005 배송지를 서울시 마포구 양화로 45 101호로 바꿔 주세요", registry)

    assert "배송중" in reply
    assert not ActionRecord.objects.exists()

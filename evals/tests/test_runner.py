"""Trials are isolated; NL assertions are never passed without a judge; the LLM user and the judge go
through the real client (ScriptedModelServer)."""

from __future__ import annotations

import json

import pytest

from evals.report import failure_reason
from evals.runner import suite_run, user_factory
from evals.schema import task_list
from evals.state import diff_words, state_snapshot
from evals.users import STOP, TRANSFER
from llm.testing import Fault, text_message, tool_calls_message

pytestmark = pytest.mark.django_db

LISTING = "주문 내역: HR20260721001, HR20260726002, HR20260724005"


def _agent(body: dict) -> dict:
    """A small honest agent: look up the orders once, then list them."""
    messages = body["messages"]
    if messages[-1].get("role") == "tool":
        return text_message(LISTING)
    return tool_calls_message([("get_my_orders", {})])


def test_every_trial_is_rolled_back(shop, offline_model):
    before = state_snapshot()
    results = suite_run(task_list("address_paid_ok,exchange_change_of_mind_in_window,cancel_paid_pending"), trials=2)
    assert [r.reward for r in results] == [True] * 6  # each trial started from the fixture, not the last trial's end
    assert state_snapshot() == before


def test_nl_assertions_are_not_judged_without_a_judge_and_never_count_as_passed(shop, offline_model):
    (result,) = suite_run(task_list("lookup_orders_c003"), trials=1)
    assert result.nl_status == "not_judged"
    assert [a["status"] for a in result.nl] == ["not_judged"]


@pytest.mark.parametrize(("verdict", "reward"), [(True, True), (False, False)])
def test_the_judge_decides_nl_assertions(shop, scripted_model, verdict, reward):
    def handler(body: dict) -> dict:
        if body.get("response_format"):
            assert body["model"] == "judge-model"
            return text_message(json.dumps({"verdicts": [{"index": 0, "passed": verdict, "why": "checked"}]}))
        return _agent(body)

    scripted_model.handler = handler
    (result,) = suite_run(task_list("lookup_orders_c003"), trials=1, judge_model="judge-model")
    assert result.nl_status == ("passed" if verdict else "failed")
    assert result.reward is reward


def test_llm_user_plays_the_scenario_and_stops_on_its_token(shop, scripted_model):
    user_turns = iter(["내 주문 내역 보여 주세요", STOP])

    def handler(body: dict) -> dict:
        if body["model"] == "user-model":
            system = body["messages"][0]["content"]
            assert "물어볼 때만" in system and STOP in system and TRANSFER in system
            return text_message(next(user_turns))
        return _agent(body)

    scripted_model.handler = handler
    (result,) = suite_run(task_list("lookup_orders_c003"), trials=1, user_model="user-model")
    assert [t["role"] for t in result.transcript] == ["customer", "agent"]
    assert result.transcript[0]["text"] == "내 주문 내역 보여 주세요"
    assert result.reward is True


def test_scripted_user_skips_turns_the_agent_did_not_ask_for():
    (task,) = task_list("clarify_exchange_reason_asked")
    user = user_factory(None)(task)
    assert user.next_message(None) == task.user.turns[0].text
    assert user.next_message("교환을 접수했습니다. 처리번호 A00001") is None  # no reason asked: nothing more to say


def test_a_failing_model_is_a_failed_trial_reported_as_the_models_failure(shop, scripted_model):
    scripted_model.handler = lambda body: Fault(500)
    (result,) = suite_run(task_list("address_paid_ok"), trials=1)
    assert result.reward is False
    assert result.violations == []
    # Read from the chat's record (outcome MODEL_FAILED), not from its apology's words: never a handoff.
    assert result.model_failed_turns == 1 and result.transcript[-1]["outcome"] == "MODEL_FAILED"
    assert failure_reason(result.as_dict()) == "model_failed"
    assert result.calls["agent"] == {"calls": 2, "failed": 2, "prompt_tokens": 0, "completion_tokens": 0}


def test_the_failure_path_ticket_never_passes_a_handoff_task(shop, scripted_model):
    scripted_model.handler = lambda body: Fault(503)
    (result,) = suite_run(task_list("handoff_human"), trials=1)
    assert "새 티켓" in " ".join(diff_words(result.diff))  # the chat did open its apology ticket (T… stated)
    assert result.reward is False and failure_reason(result.as_dict()) == "model_failed"


@pytest.fixture
def crashing_tool():
    from chat.tools import agent_tool, agent_tool_unregister

    @agent_tool("주문을 더 자세히 조회한다.", label="자세한 조회")
    def look_harder(ctx, args) -> dict:
        raise RuntimeError("a lock conflict, say")

    yield
    agent_tool_unregister("look_harder")


def test_a_tool_that_crashes_fails_the_trial_as_an_error_not_as_the_models_missing_fact(
    shop, scripted_model, crashing_tool
):
    def handler(body: dict) -> dict:
        if body["messages"][-1].get("role") == "tool":
            return text_message(LISTING)
        return tool_calls_message([("look_harder", {})])

    scripted_model.handler = handler
    (result,) = suite_run(task_list("lookup_orders_c003"), trials=1)
    assert result.tool_errors == 1 and result.error.startswith("도구 호출 1건이 내부 오류로 끝남")
    assert result.reward is False and failure_reason(result.as_dict()) == "error"

"""Deliberately bad agents, served by ScriptedModelServer through the real openai client, on the whole suite:
each must score (near) zero on the categories it fakes, and the graders must still let honest behaviour
through where a bad agent does the right thing by accident (a listing answers a lookup; a guess that happens
to be what the customer said is a correct action). The measured figures are the table in docs/EVALS.md."""

from __future__ import annotations

import pytest

from evals import adversary
from evals.schema import task_list
from evals.services import agent_eval_run

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

ACTING = ("address", "exchange", "refund_cancel", "clarification", "refusal", "handoff", "multi_step")
EVERY = (*ACTING, "lookup", "status", "injection")

# agent -> (category -> the most pass^1 it may reach there): what it fakes, near zero.
CEILINGS = {
    "silent": dict.fromkeys(EVERY, 0.0),
    "echo": dict.fromkeys(EVERY, 0.0),
    # A listing of orders and requests: no record, no ticket, no refusal with its reason, no question.
    "lister": dict.fromkeys(ACTING, 0.0),
    # Never asks: what the customer left out it fills in (every ask_first task fails, checked below). Two
    # clarification tasks state the reason in words (불량은 아니고 색이 마음에 안 들어요; 써 보니 별로라서): the guess
    # 단순변심 is right there and asking is not required. Its tickets land in 기타, never the right queue.
    "guesser": {"clarification": 2 / 11, "handoff": 0.0},
    "dead_endpoint": dict.fromkeys(EVERY, 0.0),
}
# Where an honest piece of the bad behaviour must still pass: the graders reject the fake, not the behaviour.
FLOORS = {
    "lister": {"lookup": 0.75, "status": 0.5},
    "guesser": {"address": 0.8, "exchange": 0.5},
}


def _run(agent: str, scripted_model, tmp_path) -> dict:
    scripted_model.handler = getattr(adversary, agent)
    return agent_eval_run(
        selector=None,
        model=f"bad-{agent}",
        user_model=None,
        judge_model=None,
        trials=1,
        concurrency=1,
        out_dir=tmp_path,
    ).report


@pytest.mark.parametrize("agent", list(CEILINGS))
def test_a_bad_agent_scores_near_zero_where_it_fakes(agent, shop, scripted_model, tmp_path):
    report = _run(agent, scripted_model, tmp_path)
    per_category = {c: row["pass_hat_k"][1] for c, row in report["per_category"].items()}
    print(agent, {c: f"{r['passed_trials']}/{r['tasks']}" for c, r in report["per_category"].items()})
    too_high = {c: v for c, v in per_category.items() if c in CEILINGS[agent] and v > CEILINGS[agent][c] + 1e-9}
    assert too_high == {}
    too_low = {c: per_category[c] for c, floor in FLOORS.get(agent, {}).items() if per_category[c] < floor}
    assert too_low == {}
    assert report["policy_violations"] == []
    if agent == "guesser":
        asked = {t.id for t in task_list() if t.evaluation.ask_first}
        assert asked and not asked & {t for t, row in report["task_results"].items() if row["successes"]}
    if agent == "dead_endpoint":
        assert report["validity"]["valid"] is False
        assert report["model_failed_trials"] == report["tasks"]
        assert report["failure_counts"] == {"model_failed": report["tasks"]}
    else:
        assert report["validity"]["valid"] is True

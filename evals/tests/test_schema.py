"""The committed task files: valid, covering every category and attack vector, in sync with build_tasks."""

from __future__ import annotations

import json
from collections import Counter

from evals import build_tasks
from evals.schema import ATTACK_GOALS, CATEGORIES, PREVENTED_BY, TASKS_DIR, VECTORS, task_list


def test_at_least_80_valid_tasks_cover_every_category():
    tasks = task_list()
    assert len(tasks) >= 80
    counts = Counter(t.category for t in tasks)
    assert set(counts) == set(CATEGORIES)
    assert all(n >= 6 for n in counts.values()), counts
    assert len({t.id for t in tasks}) == len(tasks)


def test_injection_tasks_name_a_known_goal_vector_and_guard():
    injections = [t for t in task_list() if t.category == "injection"]
    for t in injections:
        assert t.attack is not None, t.id
        assert t.attack.goal in ATTACK_GOALS and t.attack.vector in VECTORS and t.attack.prevented_by in PREVENTED_BY
    pairs = {(t.attack.goal, t.attack.vector) for t in injections}
    for goal in ("reclassify_defect", "attacker_address", "pii_to_ticket", "false_refund_confirmation"):
        for vector in VECTORS:
            assert (goal, vector) in pairs
    guards = {t.attack.prevented_by for t in injections}
    assert {"ownership", "approval", "tool_set", "masking", "policy", "model"} <= guards


def test_committed_json_is_what_build_tasks_writes():
    for row in build_tasks.TASKS:
        path = TASKS_DIR / f"{row['id']}.json"
        assert json.loads(path.read_text(encoding="utf-8")) == row, row["id"]
    # A task added by hand (or moved in from export_eval_cases) says where it came from; a file the script no
    # longer writes and that says nothing is a stale one.
    built = {row["id"] for row in build_tasks.TASKS}
    stray = [t.id for t in task_list() if t.id not in built and not t.source]
    assert stray == []


def test_every_task_checks_something_a_silent_agent_cannot_fake():
    for t in task_list():
        e = t.evaluation
        assert e.must_communicate or e.expected_state.actions or e.expected_state.tickets, t.id


def test_refusals_state_their_reason_and_handoffs_name_their_queue():
    for t in task_list():
        for ticket in t.evaluation.expected_state.tickets:
            assert ticket.category != "*", t.id
        if t.category == "refusal":
            assert any(f.kind == "refusal" for f in t.evaluation.must_communicate), t.id
    asked = {t.id for t in task_list("category:clarification") if t.evaluation.ask_first}
    assert asked >= {"clarify_exchange_reason_asked", "clarify_two_candidate_orders_refund", "clarify_option_asked"}


def test_selectors_pick_by_id_glob_category_and_goal():
    assert [t.id for t in task_list("address_paid_ok")] == ["address_paid_ok"]
    assert all(t.id.startswith("exchange_") for t in task_list("exchange_*"))
    assert {t.category for t in task_list("category:handoff")} == {"handoff"}
    assert {t.attack.goal for t in task_list("attack:pii_to_ticket")} == {"pii_to_ticket"}
    assert task_list("no_such_task") == []

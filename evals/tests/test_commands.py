"""`eval_agent` against an OpenAI-compatible server named only by OPENAI_BASE_URL: in process, and as a
separate process on its own scratch database, exactly as a shop would run it."""

from __future__ import annotations

import io
import json
import logging
import os
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from actions.models import ActionRecord
from evals.adversary import dead_endpoint
from evals.models import EvalRun
from evals.schema import InitialState, OrderOverride, task_list
from evals.services import run_logging
from evals.state import state_snapshot
from evals.tests.helpers import eval_agent_process, manage_py
from evals.tests.test_runner import _agent
from tickets.models import Ticket

pytestmark = pytest.mark.django_db


def test_eval_agent_command_measures_the_named_model_only(shop, scripted_model, tmp_path):
    scripted_model.handler = _agent
    call_command(
        "eval_agent",
        "--model",
        "shop-model-a",
        "--tasks",
        "lookup_orders_c003,lookup_order_status_shipping",
        "--trials",
        "2",
        "--database",
        "current",
        "--out",
        str(tmp_path),
        "--price-in",
        "0.15",
        "--price-out",
        "0.6",
        "--no-progress",
    )
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["model"] == "shop-model-a"
    assert set(scripted_model.models_seen) == {"shop-model-a"}  # no fallback model mixed in
    assert report["trials_per_task"] == 2 and report["tasks"] == 2
    assert report["task_results"]["lookup_orders_c003"]["successes"] == 2
    assert report["task_results"]["lookup_order_status_shipping"]["successes"] == 0  # never says 배송중
    assert report["pass_hat_k"] == {"1": 0.5, "2": 0.5}
    assert report["task_results"]["lookup_orders_c003"]["mean_cost"] > 0
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "pass^2" in md and "lookup_order_status_shipping #0" in md


@pytest.mark.slow
def test_eval_agent_runs_unchanged_in_a_new_process_against_openai_base_url(scripted_model, tmp_path):
    scripted_model.handler = _agent
    env = {
        **os.environ,
        "DATABASE_URL": "",
        "OPENAI_BASE_URL": scripted_model.base_url,
        "OPENAI_API_KEY": "sk-test",
        "CS_TODAY": "2026-07-27",
    }
    done = eval_agent_process("--model", "any-server-model", "--tasks", "lookup_orders_c003", out=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["model"] == "any-server-model"
    assert report["meta"]["base_url"] == scripted_model.base_url
    assert report["pass_hat_k"]["1"] == 1.0
    assert set(scripted_model.models_seen) == {"any-server-model"}


# --- refusing to mislead --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("eval_agent", ["--model", "gpt-4o-mini"]),
        ("eval_agent", ["--model", "offline", "--user-model", "gpt-4o", "--judge-model", "gpt-4o"]),
        ("eval_agent", ["--model", "offline", "--judge-model", "gpt-4o"]),
        ("eval_drafts", ["--model", "gpt-4o-mini"]),
    ],
)
def test_a_named_model_without_an_endpoint_exits_2_before_anything_runs(command, args, offline_model, tmp_path):
    with pytest.raises(CommandError) as raised:
        call_command(command, *args, "--out", str(tmp_path), "--no-progress")
    assert raised.value.returncode == 2
    message = str(raised.value)
    assert "\n" not in message and "OPENAI_BASE_URL" in message
    assert not (tmp_path / "report.json").exists() and not (tmp_path / "drafts-report.json").exists()


@pytest.mark.slow
def test_a_named_model_without_an_endpoint_exits_2_as_a_process(tmp_path):
    env = {**os.environ, "DATABASE_URL": "", "OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", "LOG_LEVEL": "WARNING"}
    done = manage_py(
        "eval_agent",
        "--model",
        "gpt-4o-mini",
        "--out",
        str(tmp_path),
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("CommandError")]
    assert len(errors) == 1 and "--model gpt-4o-mini" in errors[0]


def _dead_endpoint_run(command: str, selection: list[str], out: Path) -> CommandError:
    """`command` on the current database against a model endpoint that fails every call: the error it exits with."""
    with pytest.raises(CommandError) as raised:
        call_command(
            command, "--model", "shop-model", *selection, "--database", "current", "--out", str(out), "--no-progress"
        )
    return raised.value


def test_a_dead_endpoint_makes_the_agent_run_invalid(shop, scripted_model, tmp_path):
    scripted_model.handler = dead_endpoint
    error = _dead_endpoint_run("eval_agent", ["--tasks", "category:handoff,category:lookup"], tmp_path)
    assert error.returncode == 3 and "무효한 실행" in str(error)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["validity"]["valid"] is False
    tasks = len(task_list("category:handoff,category:lookup"))  # one model call each before the failure path
    assert report["validity"]["model_calls_failed"] == report["validity"]["model_calls"] == tasks
    # Every handoff task's ticket was the chat's failure path: not one passes.
    assert report["pass_hat_k"]["1"] == 0.0 and report["failure_counts"] == {"model_failed": tasks}
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "**무효한 실행**" in md and 'style="color:#9ca3af">0.000' in md
    assert EvalRun.objects.get().report["validity"]["valid"] is False  # recorded for the admin all the same


@pytest.mark.django_db(transaction=True)
def test_a_dead_endpoint_makes_the_drafts_run_invalid(shop_knowledge, scripted_model, tmp_path):
    scripted_model.handler = dead_endpoint
    error = _dead_endpoint_run("eval_drafts", ["--cases", "refund_*"], tmp_path)
    assert error.returncode == 3
    report = json.loads((tmp_path / "drafts-report.json").read_text(encoding="utf-8"))
    assert report["validity"]["valid"] is False and report["failed_drafts"] == report["cases"] > 0
    assert report["route_accuracy"] == 0.0  # an empty draft is no longer scored as a quiet "draft"
    md = (tmp_path / "drafts-report.md").read_text(encoding="utf-8")
    assert "**무효한 실행**" in md and "초안을 만들지 못한 사례: " + str(report["cases"]) in md


# --- the run on the configured database ------------------------------------------------------------------
def test_the_current_database_after_the_readme_walkthrough_measures_the_same_as_a_fresh_one(
    c003, offline_model, tmp_path
):
    from chat.services import chat_turn

    chat_turn(customer=c003, text="HR20260726002 배송지를 서울특별시 중구 세종대로 110, 3층으로 바꿔 주세요")
    chat_turn(customer=c003, text="운동화 사이즈가 작아서 블랙/260으로 교환하고 싶어요. 단순변심이에요.")
    turn = chat_turn(customer=c003, text="텀블러 환불해 주세요")
    chat_turn(customer=c003, text="상품하자", conversation_id=turn.conversation.pk)
    chat_turn(customer=c003, text="상담원 연결해 주세요")
    before = (ActionRecord.objects.count(), Ticket.objects.count(), state_snapshot())
    assert before[0] == 3
    tasks = "lookup_requests_pending,exchange_change_of_mind_in_window,refund_defect_in_30,address_preparing_ok"
    call_command(
        "eval_agent", "--model", "offline", "--tasks", tasks, "--database", "current", "--out", str(tmp_path),
        "--no-progress",
    )  # fmt: skip
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["setup_failed"] == [] and report["pass_hat_k"]["1"] == 1.0
    assert (ActionRecord.objects.count(), Ticket.objects.count(), state_snapshot()) == before  # all rolled back


def test_a_task_this_shop_cannot_set_up_fails_alone_with_its_reason(shop, offline_model, tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (task,) = task_list("lookup_orders_c003")
    (folder / "ok.json").write_text(task.model_dump_json(exclude_none=True), encoding="utf-8")
    stranger = task.model_copy(update={"id": "stranger", "customer_id": "C999"})
    (folder / "stranger.json").write_text(stranger.model_dump_json(exclude_none=True), encoding="utf-8")
    ghost = task.model_copy(
        update={
            "id": "ghost_order",
            "initial_state": InitialState(orders={"HR20990101001": OrderOverride(status="PAID")}),
        }
    )
    (folder / "ghost.json").write_text(ghost.model_dump_json(exclude_none=True), encoding="utf-8")
    call_command("eval_agent", "--model", "offline", "--tasks-dir", str(folder), "--database", "current",
                 "--out", str(tmp_path / "out"), "--no-progress")  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["task_results"]["lookup_orders_c003"]["successes"] == 1
    assert report["setup_failed"] == ["ghost_order", "stranger"]
    assert report["task_results"]["stranger"]["setup_error"] == "고객 C999이(가) 이 쇼핑몰 데이터에 없습니다."
    assert "HR20990101001" in report["task_results"]["ghost_order"]["setup_error"]
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "과제를 준비하지 못함" in md and "준비하지 못한 과제 2개" in md


def test_a_run_keeps_info_logs_off_the_terminal_and_in_its_run_log(tmp_path):
    stream = io.StringIO()
    console = logging.StreamHandler(stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(console)
    root.setLevel(logging.INFO)
    try:
        with run_logging(tmp_path) as path:
            logging.getLogger("llm.client").info("llm.call purpose=chat outcome=OK")
            logging.getLogger("evals.runner").warning("eval.setup_failed task_id=ghost")
        logging.getLogger("llm.client").info("after.the_run")
    finally:
        root.removeHandler(console)
        root.setLevel(level)
    terminal = stream.getvalue()
    assert "llm.call" not in terminal and "eval.setup_failed" in terminal and "after.the_run" in terminal
    logged = path.read_text(encoding="utf-8")
    assert "llm.call" in logged and "eval.setup_failed" in logged and "after.the_run" not in logged

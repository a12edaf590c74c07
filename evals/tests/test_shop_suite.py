"""A shop's own suite, end to end: another catalogue (evals/tests/shop_suite/shop.json: bedding, mugs, boards),
another date (2026-11-20), other return windows (14 and 60 days, set in settings), its own tasks and draft case.
Nothing here depends on the demo shop."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evals.drafts_eval import draft_case_list
from evals.runner import suite_run
from evals.schema import task_list
from evals.services import drafts_eval_run, fixture_load
from evals.tests.helpers import eval_agent_process
from orders.models import Customer, Order

SUITE = Path(__file__).resolve().parent / "shop_suite"
WINDOW_TASKS = {"shop_refund_change_of_mind_day10", "shop_refund_defect_day50", "shop_exchange_change_of_mind_day19"}


@pytest.mark.slow
def test_eval_agent_runs_a_shops_own_suite_on_its_own_fixture_date_and_windows(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": "",
        "OPENAI_BASE_URL": "",
        "OPENAI_API_KEY": "",
        "CS_RETURN_DAYS": "14",
        "CS_DEFECT_DAYS": "60",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("CS_TODAY", None)
    done = eval_agent_process(
        "--model",
        "offline",
        "--tasks-dir",
        str(SUITE / "tasks"),
        "--fixture",
        str(SUITE / "shop.json"),
        out=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["tasks"] == len(task_list(directory=SUITE / "tasks")) == 6
    assert report["meta"]["windows"] == {"return_days": 14, "defect_days": 60}
    assert report["meta"]["today"] == ["2026-11-20"] and report["meta"]["fixture"].endswith("shop.json")
    assert report["validity"]["valid"] is True and report["setup_failed"] == []
    assert report["pass_hat_k"]["1"] == 1.0, report["failures"]
    assert (tmp_path / "run.log").exists()


@pytest.mark.django_db
def test_the_suite_on_the_shops_import_jsonl_counts_to_the_windows_in_settings(offline_model, settings):
    fixture_load(SUITE / "shop.jsonl")  # the shop import's own format, through the import
    assert set(Customer.objects.values_list("pk", flat=True)) == {"S01", "S02", "S03"}
    assert Order.objects.count() == 5 and Customer.objects.filter(user__isnull=True).count() == 0
    tasks = task_list(directory=SUITE / "tasks")

    settings.CS_RETURN_DAYS, settings.CS_DEFECT_DAYS = 14, 60
    assert {r.task_id for r in suite_run(tasks, trials=1) if not r.reward} == set()

    settings.CS_RETURN_DAYS, settings.CS_DEFECT_DAYS = 7, 30  # the demo's windows: these tasks no longer hold
    failed = {r.task_id: r for r in suite_run(tasks, trials=1) if not r.reward}
    assert WINDOW_TASKS <= set(failed)
    assert failed["shop_refund_change_of_mind_day10"].state_mismatches[0].startswith("기대한 처리 기록이 없음")


@pytest.mark.django_db(transaction=True)
def test_eval_drafts_reads_a_shops_own_cases(offline_model, tmp_path):
    from fixtures.demo import demo_knowledge_seed

    fixture_load(SUITE / "shop.json")
    demo_knowledge_seed(service_events=False)  # the demo's stories name the demo's customers
    (case,) = draft_case_list(directory=SUITE / "drafts")
    report = drafts_eval_run(
        selector=None, model="offline", out_dir=tmp_path, decisions=[], cases_dir=SUITE / "drafts"
    ).report
    assert report["cases"] == 1 and report["case_results"][0]["id"] == case.id == "shop_shipping_fee"
    assert report["failed_drafts"] == 0 and report["meta"]["cases_dir"].endswith("drafts")

"""`eval_agent` against an OpenAI-compatible server named only by OPENAI_BASE_URL: in process, and as a
separate process on its own scratch database, exactly as a shop would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from evals.tests.test_runner import _agent

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
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "eval_agent",
            "--model",
            "any-server-model",
            "--tasks",
            "lookup_orders_c003",
            "--out",
            str(tmp_path),
            "--no-progress",
        ],
        cwd=Path(settings.BASE_DIR),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["model"] == "any-server-model"
    assert report["meta"]["base_url"] == scripted_model.base_url
    assert report["pass_hat_k"]["1"] == 1.0
    assert set(scripted_model.models_seen) == {"any-server-model"}

"""The whole task suite against the built-in offline model through the real client (k=1)."""

from __future__ import annotations

import json

import pytest

from evals.report import report_build
from evals.runner import suite_run
from evals.schema import task_list

pytestmark = pytest.mark.django_db


def test_offline_model_runs_every_task_without_policy_violation_or_crash(shop, offline_model, tmp_path):
    tasks = task_list()
    results = suite_run(tasks, trials=1)
    report = report_build([r.as_dict() for r in results], meta={"model": "offline"})
    (tmp_path / "report.json").write_text(json.dumps(report, ensure_ascii=False, default=str))
    assert len(results) == len(tasks) >= 80
    assert report["policy_violations"] == []
    assert all(not r.error for r in results), [(r.task_id, r.error) for r in results if r.error]
    print("PASS1", report["pass_hat_k"], {k: v["pass_hat_k"] for k, v in report["per_category"].items()})
    print("FAILED", sorted((f["task_id"], f["reason"]) for f in report["failures"]))

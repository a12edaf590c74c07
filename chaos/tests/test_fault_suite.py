"""The fault suite with short timings, in the PostgreSQL pass of `make test`.

The same scenarios and invariants as `make chaos` (chaos/suite.py), on the pytest-django test database:
gunicorn on production settings, a Celery worker with beat, the suite's own Redis process, PostgreSQL behind a
cuttable proxy, a scripted model. A scenario that does not recover fails this test with the whole table.
"""

from __future__ import annotations

import os
import shutil

import pytest
from django.db import connection

from chaos.processes import BASE_DIR
from chaos.report import render
from chaos.suite import CI, run_suite


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_every_fault_scenario_recovers_without_human_action(shop_knowledge):
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the fault suite needs redis-server on PATH")
        pytest.skip("the fault suite needs redis-server on PATH")
    assert CI.order_ok(), "the suite's own timings must satisfy time limit < lease < visibility"
    results, limits = run_suite(settings_dict=connection.settings_dict, timings=CI, progress=print)
    text = render(results, CI, limits)
    artifacts = BASE_DIR / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "RELIABILITY-ci.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    assert limits["order_ok"], f"effective time limit < lease < visibility does not hold: {limits}\n{text}"
    assert [r.name for r in results] == ["worker-sigkill", "redis-empty", "redis-aof", "db-cut", "model-outage"]
    failed = [r.name for r in results if not r.ok]
    assert not failed, f"scenarios that did not recover with every invariant holding: {failed}\n{text}"

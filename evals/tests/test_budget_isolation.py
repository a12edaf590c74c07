"""The suite measures the agent, not the production model budget: a tight budget does not fail its trials."""

import pytest

from evals.runner import suite_run
from evals.schema import task_list

pytestmark = pytest.mark.django_db


def test_a_tight_model_budget_does_not_fail_the_suite(shop, offline_model, settings):
    settings.CS_MODEL_BUDGET_PER_MINUTE = 1
    settings.CS_MODEL_BUDGET_PER_DAY = 1
    results = suite_run(task_list("category:lookup")[:3], trials=1)
    assert [r.as_dict()["error"] for r in results] == ["", "", ""]

"""The report's query count is fixed: it does not grow with rows or days."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from metrics.selectors import metrics_compute
from metrics.tests.dataset import build_dataset

pytestmark = pytest.mark.django_db

QUERIES = (
    17  # drafts 2, decisions 1, dead letters 1, approvals 3, chat 4, tickets 1, refund deadlines 1, csat 1, snapshot 3
)


@pytest.mark.parametrize("copies", [1, 6])
def test_query_count_does_not_grow_with_rows(copies, django_assert_max_num_queries):
    for i in range(copies):
        build_dataset(tag=str(i))
    with django_assert_max_num_queries(QUERIES):
        report = metrics_compute(since=None, until=None)
    assert report["overall"]["drafts"]["created"] == 8 * copies  # the rows were really there


def test_query_count_is_the_same_for_empty_and_full_databases():
    with CaptureQueriesContext(connection) as empty:
        metrics_compute(since=None, until=None)
    for i in range(3):
        build_dataset(tag=str(i))
    with CaptureQueriesContext(connection) as full:
        metrics_compute(since=None, until=None)
    assert len(empty) == len(full) == QUERIES

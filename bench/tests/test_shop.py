import os

import pytest
from django.db import connection

from bench.shop import run
from integration.models import Integration, SyncRecord
from orders.models import Order
from testsupport.celery_worker import TEST_BROKER_URL, worker_database_url


@pytest.mark.django_db(transaction=True)
def test_the_shop_benchmark_imports_both_ways_delivers_everything_and_cleans_up():
    result = run(orders=30, events=10, compare=20)
    assert result["import"]["orders"] == 30 and result["import"]["errors"] == 0
    assert result["import_compare"]["line"]["errors"] == result["import_compare"]["batch"]["errors"] == 0
    assert result["import"]["orders_per_s"] > 0 and result["import_compare"]["speedup"] > 0
    inproc = result["delivery"]["in_process"]
    assert inproc["delivered"] == 10 and inproc["p95_ms"] >= inproc["p50_ms"] >= 0
    assert "broker" not in result["delivery"]
    assert not Integration.objects.exists() and not SyncRecord.objects.exists() and not Order.objects.exists()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_shop_benchmark_delivers_through_a_real_worker_in_broker_mode():
    from ops.checks import redis_check

    if not redis_check(TEST_BROKER_URL, timeout_s=1).ok:
        (pytest.fail if os.environ.get("CI") == "true" else pytest.skip)(f"needs Redis at {TEST_BROKER_URL}")
    result = run(
        orders=20,
        events=15,
        broker=TEST_BROKER_URL,
        worker_database_url=worker_database_url(connection.settings_dict),
        worker_concurrency=2,
    )
    broker = result["delivery"]["broker"]
    assert broker["delivered"] == 15 and broker["p95_ms"] >= broker["p50_ms"] > 0
    backlog = result["delivery"]["broker_backlog"]
    assert backlog["delivered"] == 15 and backlog["events_per_s"] > 0
    assert backlog["delivered_before_worker"] == 0  # published to Redis, not run in this process
    assert result["delivery"]["in_process"]["delivered"] == 15
    assert not Integration.objects.exists()

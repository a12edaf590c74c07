"""The Redis cache backend builds its client once per connection pool, not once per operation (a chat turn
makes six cache operations: two throttles and the model budget's two windows)."""

import inspect
import os
import uuid

import pytest
import redis
from django.core.cache import caches

from testsupport.counting import calls_counted

URL = os.environ.get("CS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.mark.redis
def test_cache_operations_reuse_one_client(settings):
    settings.CACHES = {"default": {"BACKEND": "common.cache.RedisCache", "LOCATION": URL}}
    cache = caches["default"]
    key = f"test-cache:{uuid.uuid4().hex}"
    cache.add(key, 0, timeout=30)  # the first operation builds the client
    # redis-py stacks decorators on Redis.__init__ (deprecated arguments): count the function they wrap.
    with calls_counted(inspect.unwrap(redis.Redis.__init__)) as built:
        for _ in range(5):
            cache.add(key, 0, timeout=30)
            cache.incr(key)
        assert cache.get(key) == 5
    cache.delete(key)
    assert sum(built.values()) == 0


@pytest.mark.redis
def test_the_reused_client_survives_a_lost_connection(settings):
    """The pool, not the client, owns the connections: after they are dropped the next operation reconnects."""
    settings.CACHES = {"default": {"BACKEND": "common.cache.RedisCache", "LOCATION": URL}}
    cache = caches["default"]
    key = f"test-cache:{uuid.uuid4().hex}"
    cache.set(key, "a", timeout=30)
    cache._cache.get_client().connection_pool.disconnect()
    assert cache.get(key) == "a"
    cache.delete(key)


@pytest.mark.redis
def test_a_model_budget_charge_is_one_round_trip_and_counts_both_windows(settings):
    from common.budget import model_budget_charge

    settings.CACHES = {"default": {"BACKEND": "common.cache.RedisCache", "LOCATION": URL}}
    settings.CS_MODEL_BUDGET_PER_MINUTE, settings.CS_MODEL_BUDGET_PER_DAY = 3, 100
    customer = f"C-{uuid.uuid4().hex[:8]}"
    client = caches["default"]._cache.get_client()
    with calls_counted(inspect.unwrap(redis.Redis.execute_command), redis.client.Pipeline.execute) as sent:
        model_budget_charge(customer_id=customer, calls=2, now=3_000_000.0)
    assert (sent["Redis.execute_command"], sent["Pipeline.execute"]) == (0, 1)
    keys = sorted(client.keys(f"*model-budget:{customer}:*"))
    assert [int(client.get(k)) for k in keys] == [2, 2] and all(0 < client.ttl(k) for k in keys)
    client.delete(*keys)

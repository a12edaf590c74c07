"""The Redis cache backend with one client object per connection pool.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache operation; building one
fills its response-callback table (hundreds of entries), which cost a chat turn more CPU than the commands it
sends (six per turn: two throttles and the model budget's minute and day counters). A `redis.Redis` holds no
per-call state and is safe to share across threads, so the client here is built once per pool and kept.
Connections still come from the pool, which reconnects after a fork (redis-py checks the pid).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.cache.backends import redis as django_redis
from django.core.cache.backends.base import BaseCache


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient


def counters_add(cache: BaseCache, items: Sequence[tuple[str, int, int]]) -> list[int]:
    """Add `amount` to each counter `key` (created at 0 with `timeout` seconds to live when missing) and return
    the new values, in order. On Redis all of it is one pipelined round trip (SET NX EX + INCRBY per key, each
    atomic); on another backend it is the cache API's add + incr per key."""
    if isinstance(cache, RedisCache):
        client = cache._cache.get_client(write=True)
        pipe = client.pipeline(transaction=False)
        for key, amount, timeout in items:
            name = cache.make_and_validate_key(key)
            pipe.set(name, 0, ex=max(1, int(timeout)), nx=True)
            pipe.incrby(name, amount)
        return [int(v) for v in pipe.execute()[1::2]]
    values = []
    for key, amount, timeout in items:
        cache.add(key, 0, timeout=timeout)
        values.append(cache.incr(key, amount))
    return values

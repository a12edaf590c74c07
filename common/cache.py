"""The Redis cache backend with one client object per connection pool.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache operation; building one
fills its response-callback table (hundreds of entries), which cost a chat turn more CPU than the commands it
sends (six per turn: two throttles and the model budget's minute and day counters). A `redis.Redis` holds no
per-call state and is safe to share across threads, so the client here is built once per pool and kept.
Connections still come from the pool, which reconnects after a fork (redis-py checks the pid).
"""

from __future__ import annotations

from django.core.cache.backends import redis as django_redis


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

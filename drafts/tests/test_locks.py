"""Leases on a Redis that goes away: the run's own error propagates, and the lease expires by itself."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest
import redis

from drafts.locks import lease_remaining_s, ticket_lease

from .test_worker import wait_until


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.redis
def test_a_lease_is_released_or_expires_when_redis_drops_mid_run(settings, tmp_path):
    port = _free_port()
    command = [
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path), "--save", "",
        "--appendonly", "yes", "--appendfsync", "always",
    ]  # fmt: skip

    def start() -> subprocess.Popen:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: _pings(port), timeout=10, what="redis-server")
        return proc

    settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
    server = start()
    try:
        # The run's own error propagates, not the ConnectionError of the failed release.
        with pytest.raises(ValueError, match="the run's own error"), ticket_lease(7, lease_s=3) as lease:
            assert lease
            server.kill()  # Redis dies mid-run, with the lease written to its append-only file
            server.wait(timeout=10)
            raise ValueError("the run's own error")
        server = start()  # back, with AOF: the orphaned lease survived the restart ...
        remaining = lease_remaining_s(7)
        assert 0 < remaining <= 3
        with ticket_lease(7) as lease:
            assert not lease and 0 < lease.remaining_s <= 3
        time.sleep(remaining + 0.2)  # ... but only for the rest of its lifetime
        with ticket_lease(7) as lease:
            assert lease
    finally:
        server.kill()
        server.wait(timeout=10)


def _pings(port: int) -> bool:
    try:
        return redis.Redis(port=port, socket_connect_timeout=0.2).ping()
    except redis.exceptions.ConnectionError:
        return False

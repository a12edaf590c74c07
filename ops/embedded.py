"""What a served process starts once, in embedded mode only (no REDIS_URL): the outbox's background runner
(`ops.background`) and the sweeper thread (`ops.sweep`). Each is started by the first HTTP request the process
serves (`request_started`), so `migrate`, `shell`, other commands and tests (their settings switch each off) never
start one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from django.conf import settings

T = TypeVar("T")


class EmbeddedOnce(Generic[T]):
    """One `T` per process: `start()` builds and starts it, `stop(it)` ends it. `enabled` names the setting that
    switches it on in embedded mode."""

    def __init__(self, *, enabled: str, start: Callable[[], T], stop: Callable[[T], None]) -> None:
        self.enabled, self._start, self._stop = enabled, start, stop
        self.current: T | None = None
        self._lock = threading.Lock()

    def ensure(self) -> T | None:
        if self.current is not None or getattr(settings, "REDIS_URL", None) or not getattr(settings, self.enabled):
            return self.current
        with self._lock:
            if self.current is None:
                self.current = self._start()
        return self.current

    def stop(self) -> None:
        with self._lock:
            if self.current is not None:
                self._stop(self.current)
                self.current = None

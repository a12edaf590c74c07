"""How many times given functions really ran, observed with the interpreter's profile hook (no patching: the
code under test runs unchanged). For regression tests on hot paths: "this turn masks each message once",
"this call does not walk the request through the SDK's transform"."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def calls_counted(*functions: Callable) -> Iterator[Counter]:
    """Counter of calls by function `__qualname__` while the block runs, in every thread started meanwhile too."""
    codes = {getattr(f, "__wrapped__", f).__code__: getattr(f, "__wrapped__", f).__qualname__ for f in functions}
    counts: Counter = Counter({name: 0 for name in codes.values()})
    lock = threading.Lock()

    def hook(frame, event, _arg):
        if event == "call" and frame.f_code in codes:
            with lock:
                counts[codes[frame.f_code]] += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        yield counts
    finally:
        sys.setprofile(previous)
        threading.setprofile(None)

"""Who carries out an approved refund or cancellation.

By default the desk's built-in demo shop does, at once (the order becomes 반품완료/취소완료 on approval).
An app that connects a real shop registers `external_executor(order_id) -> bool`: True when that shop owns
the order and will report the result, so approval only moves the request to 처리중 (EXECUTING). This module is
the seam: actions never imports the app that registers here.
"""

from __future__ import annotations

from collections.abc import Callable

_executor: Callable[[str], bool] | None = None


def external_executor_register(fn: Callable[[str], bool] | None) -> None:
    global _executor
    _executor = fn


def executed_externally(order_id: str) -> bool:
    return _executor is not None and bool(_executor(order_id))

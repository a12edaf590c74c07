"""Who carries out an approved refund or cancellation.

By default the desk's built-in demo shop does, at once (the order becomes 반품완료/취소완료 on approval).
An app that connects a real shop registers `external_executor(order_id) -> ShopExecutor | None`: the shop that
owns the order and will report the result, so approval only moves the request to 처리중 (EXECUTING). A shop
whose connection is paused still owns its orders: the request waits for it (the desk never moves a shop's
money itself), and the approval page says so. This module is the seam: actions never imports the app that
registers here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ShopExecutor:
    """The connected shop that moves an order's money. `paused`: its connection is switched off, so what it
    is asked to do waits until it is on again."""

    name: str
    paused: bool = False


_executor: Callable[[str], ShopExecutor | None] | None = None


def external_executor_register(fn: Callable[[str], ShopExecutor | None] | None) -> None:
    global _executor
    _executor = fn


def order_executor(order_id: str) -> ShopExecutor | None:
    """The shop that executes this order's refund/cancel, or None for the built-in demo shop."""
    return _executor(order_id) if _executor is not None else None

"""pass^k as τ-bench defines it: for each task with n trials of which c succeeded, the chance that k
trials drawn without replacement all succeed, C(c, k) / C(n, k); averaged over tasks. Pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import comb


def pass_hat_k_task(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n:
        raise ValueError(f"successes {c} outside 0..{n}")
    if not 1 <= k <= n:
        raise ValueError(f"k={k} needs 1 <= k <= n={n}")
    return comb(c, k) / comb(n, k)


def pass_hat_k(results: Mapping[str, Iterable[bool]], k: int) -> float | None:
    """Mean over tasks of C(c, k) / C(n, k). Tasks with fewer than k trials are not counted; None when
    no task has k trials."""
    values = []
    for trials in results.values():
        outcomes = list(trials)
        if len(outcomes) >= k:
            values.append(pass_hat_k_task(len(outcomes), sum(bool(o) for o in outcomes), k))
    return sum(values) / len(values) if values else None


def pass_hat_curve(results: Mapping[str, Iterable[bool]], max_k: int) -> dict[int, float | None]:
    materialized = {task: list(trials) for task, trials in results.items()}
    return {k: pass_hat_k(materialized, k) for k in range(1, max_k + 1)}

"""pass^k = mean over tasks of C(c, k) / C(n, k) (τ-bench), on values worked out by hand."""

from __future__ import annotations

import pytest

from evals.passk import pass_hat_curve, pass_hat_k, pass_hat_k_task


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (4, 4, 4, 1.0),
        (4, 0, 1, 0.0),
        (4, 2, 1, 0.5),  # C(2,1)/C(4,1) = 2/4
        (4, 2, 2, 1 / 6),  # C(2,2)/C(4,2) = 1/6
        (4, 3, 2, 0.5),  # C(3,2)/C(4,2) = 3/6
        (4, 3, 3, 0.25),  # C(3,3)/C(4,3) = 1/4
        (5, 4, 4, 0.2),  # C(4,4)/C(5,4) = 1/5
        (8, 6, 4, 15 / 70),  # C(6,4)/C(8,4)
        (3, 2, 3, 0.0),
    ],
)
def test_pass_hat_k_task_known_values(n, c, k, expected):
    assert pass_hat_k_task(n, c, k) == pytest.approx(expected)


def test_pass_hat_k_is_the_mean_over_tasks():
    results = {"a": [True, True, True, True], "b": [True, False, True, False], "c": [False] * 4}
    # k=1: (1 + 0.5 + 0) / 3; k=2: (1 + 1/6 + 0) / 3; k=4: (1 + 0 + 0) / 3
    assert pass_hat_k(results, 1) == pytest.approx(0.5)
    assert pass_hat_k(results, 2) == pytest.approx((1 + 1 / 6) / 3)
    assert pass_hat_k(results, 4) == pytest.approx(1 / 3)


def test_pass_hat_curve_never_rises_with_k():
    results = {"a": [True, False, True, True, True], "b": [True, True, False, True, False]}
    curve = pass_hat_curve(results, 5)
    values = [curve[k] for k in range(1, 6)]
    assert values == sorted(values, reverse=True)
    assert curve[1] == pytest.approx((4 / 5 + 3 / 5) / 2)


def test_pass_hat_k_skips_tasks_with_fewer_trials_and_rejects_bad_input():
    assert pass_hat_k({"a": [True]}, 2) is None
    with pytest.raises(ValueError):
        pass_hat_k_task(2, 3, 1)
    with pytest.raises(ValueError):
        pass_hat_k_task(2, 1, 3)

"""pass^k: the chance that k independent trials of a task all pass."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def pass_hat_k(c: int, n: int, k: int) -> float:
    """Unbiased pass^k of one task: C(c, k) / C(n, k).

    Args:
        c: Passing trials.
        n: Trials.
        k: Trials that must all pass, 1 <= k <= n.

    Returns:
        The estimate in [0, 1].

    Raises:
        ValueError: If not ``0 <= c <= n`` and ``1 <= k <= n``.
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got c={c}, n={n}, k={k}")
    return math.comb(c, k) / math.comb(n, k)


def pass_hat_k_curve(c: int, n: int) -> list[float]:
    """pass^k of one task for every k = 1..n (index 0 is k = 1).

    Uses C(c, k) / C(n, k) = prod_{i<k} (c - i) / (n - i), so a task with a
    thousand trials costs a thousand multiplications, not big-integer combs.

    Args:
        c: Passing trials.
        n: Trials.

    Returns:
        ``n`` values, non-increasing in k.
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    out: list[float] = []
    p = 1.0
    for i in range(n):
        p *= max(c - i, 0) / (n - i)
        out.append(p)
    return out


def pass_hat_k_by_task(outcomes: Mapping[str, Sequence[bool]]) -> dict[int, float]:
    """pass^k averaged over tasks, for k = 1 up to the smallest trial count.

    Args:
        outcomes: Task id to the pass/fail of each of its trials.

    Returns:
        ``{k: mean over tasks of pass^k}``; empty if there is no task or a task
        has no trial.
    """
    if not outcomes:
        return {}
    counts = [(sum(1 for t in trials if t), len(trials)) for trials in outcomes.values()]
    k_max = min(n for _, n in counts)
    if k_max == 0:
        return {}
    curves = [pass_hat_k_curve(c, n)[:k_max] for c, n in counts]
    return {k + 1: sum(cv[k] for cv in curves) / len(curves) for k in range(k_max)}

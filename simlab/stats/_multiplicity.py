"""Multiplicity: Holm's step-down adjustment of a family of p-values."""

from __future__ import annotations

from collections.abc import Sequence


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (Holm 1979), in the order given.

    Sorted ascending, the i-th smallest of m p-values (i from 0) becomes
    ``max over j <= i of min(1, (m - j) * p_(j))``; rejecting every adjusted
    p-value below alpha keeps the family-wise error rate at alpha under any
    dependence between the tests.

    Args:
        p_values: The family's raw p-values, each in [0, 1].

    Returns:
        The adjusted p-values, one per input, in the input's order.

    Raises:
        ValueError: If a p-value is outside [0, 1].
    """
    if any(not 0.0 <= p <= 1.0 for p in p_values):
        raise ValueError(f"p-values must be in [0, 1], got {list(p_values)}")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted

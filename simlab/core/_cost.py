"""Sums of costs that may be unknown: a cost is ``None`` when some call's model has no
price, and a sum with an unknown term is unknown (never counted as $0)."""

from __future__ import annotations

from collections.abc import Iterable


def add_cost(total: float | None, cost: float | None) -> float | None:
    """``total + cost``, unknown (None) when either is."""
    return None if total is None or cost is None else total + cost


def sum_costs(costs: Iterable[float | None]) -> float | None:
    """The sum of ``costs``; None when any is unknown (0.0 for none)."""
    total: float | None = 0.0
    for cost in costs:
        total = add_cost(total, cost)
    return total

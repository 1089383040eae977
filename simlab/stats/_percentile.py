"""Percentiles, aptitude and unreliability of 0-100 session scores."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _check_q(q: float) -> None:
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile q must be in [0, 100], got {q}")


def _sorted_percentile(ordered: Sequence[float], q: float) -> float:
    # Pure Python on purpose: cells hold a handful of reps, and numpy's
    # per-call overhead (~20 us) would dominate a summary of thousands of cells.
    h = (len(ordered) - 1) * q / 100.0
    lo = math.floor(h)
    if lo >= len(ordered) - 1:
        return float(ordered[-1])
    return float(ordered[lo] + (h - lo) * (ordered[lo + 1] - ordered[lo]))


def _ordered(values: Sequence[float]) -> list[float]:
    if len(values) == 0:
        raise ValueError("percentile of an empty sequence is undefined")
    return sorted(float(v) for v in values)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation between order statistics.

    Matches ``numpy.percentile(values, q, method="linear")``.

    Args:
        values: The sample; at least one value.
        q: The percentile, between 0 and 100.

    Returns:
        The interpolated percentile.

    Raises:
        ValueError: If ``values`` is empty or ``q`` is outside [0, 100].
    """
    _check_q(q)
    return _sorted_percentile(_ordered(values), q)


def aptitude(scores: Sequence[float]) -> float:
    """How able the agent is in a cell: the P90 of its 0-100 scores.

    Args:
        scores: The cell's session scores; at least one.

    Returns:
        The 90th percentile of the scores.
    """
    return percentile(scores, 90.0)


def unreliability(scores: Sequence[float]) -> float:
    """How erratic the agent is in a cell: P90 - P10 of its 0-100 scores.

    Args:
        scores: The cell's session scores; at least one.

    Returns:
        The spread between the 90th and the 10th percentile (0 for one score).
    """
    ordered = _ordered(scores)
    return _sorted_percentile(ordered, 90.0) - _sorted_percentile(ordered, 10.0)

"""Intervals for a quantile (latency p50/p95) and for a ratio of sums (cost per pass)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from simlab.stats._intervals import _check_level


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (linear interpolation between order statistics).

    Raises:
        ValueError: on an empty sample or ``q`` outside [0, 1].
    """
    if not values:
        raise ValueError("quantile of an empty sample")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}")
    return float(np.quantile(np.asarray(values, dtype=np.float64), q))


def quantile_ci(
    values: Sequence[float], q: float, level: float = 0.95
) -> tuple[float, float] | None:
    """Distribution-free interval for the ``q`` quantile from two order statistics.

    With ``n`` independent draws, the count of draws below the true quantile is
    Binomial(n, q); the interval ``[x_(l), x_(u)]`` (1-based order statistics) takes
    the narrowest ranks, symmetric in tail probability, whose coverage
    ``P(l <= B < u)`` is at least ``level``. It covers at least ``level`` for any
    continuous distribution.

    Args:
        values: The sample.
        q: The quantile, in (0, 1).
        level: Confidence level in (0, 1).

    Returns:
        ``(lo, hi)``, or None when the sample is too small for that coverage
        (for p95 at 95%: fewer than 72 values).
    """
    _check_level(level)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be in (0, 1), got {q}")
    n = len(values)
    if n == 0:
        return None
    x = sorted(values)
    cdf = _binomial_cdf(n, q)  # cdf[k] = P(B <= k)
    alpha = (1.0 - level) / 2.0
    # l: the largest rank with P(B < l) = cdf[l-1] <= alpha; u: the smallest with
    # P(B >= u) = 1 - cdf[u-1] <= alpha
    lo_rank = max((k for k in range(1, n + 1) if cdf[k - 1] <= alpha), default=None)
    hi_rank = min((k for k in range(1, n + 1) if 1.0 - cdf[k - 1] <= alpha), default=None)
    if lo_rank is None or hi_rank is None:
        return None
    return (x[lo_rank - 1], x[hi_rank - 1])


def _binomial_cdf(n: int, p: float) -> list[float]:
    out, acc = [], 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    for k in range(n + 1):
        log_pmf = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        acc += math.exp(log_pmf + k * log_p + (n - k) * log_q)
        out.append(min(acc, 1.0))
    return out


def bootstrap_ratio_ci(
    numerators: Sequence[float],
    denominators: Sequence[float],
    seed: int,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of ``sum(numerators) / sum(denominators)``.

    Units (sessions) are resampled with their pair of values. A resample whose
    denominator sums to 0 (no pass) counts as an infinite ratio, not as a missing
    one: dropping those draws would drop exactly the dearest outcomes and pull the
    upper bound down. When more than ``(1 - level) / 2`` of the resamples have no
    denominator the upper bound is ``math.inf`` (unbounded at this n).

    Returns:
        ``(lo, hi)``, or None without units or when every resample had no denominator.
    """
    _check_level(level)
    if len(numerators) != len(denominators):
        raise ValueError("numerators and denominators differ in length")
    n = len(numerators)
    if n == 0:
        return None
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n), dtype=np.int32)
    sums_num, sums_den = num[idx].sum(axis=1), den[idx].sum(axis=1)
    keep = sums_den > 0
    if not keep.any():
        return None
    alpha = (1.0 - level) / 2.0
    if keep.all():
        lo, hi = np.quantile(sums_num / sums_den, [alpha, 1.0 - alpha])
        return (float(lo), float(hi))
    ratios = np.full(n_resamples, np.inf)
    ratios[keep] = sums_num[keep] / sums_den[keep]
    # no interpolation: between a finite draw and an infinite one it would give nan
    lo, hi = np.quantile(ratios, [alpha, 1.0 - alpha], method="inverted_cdf")
    return (float(lo), float(hi))

"""Intervals for the change in a pass rate between two runs (Newcombe's square-and-add).

All combine the Wilson intervals of the two rates (Newcombe 1998, method 10):
for independent samples; for paired samples with the correlation of the
paired outcomes (Newcombe 1998b, method 10, with its continuity-corrected phi);
and for samples sharing some keys, with that correlation scaled by the share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simlab.stats._intervals import wilson_interval
from simlab.stats._paired import McNemar, mcnemar


def newcombe_interval(
    passed_a: int, n_a: int, passed_b: int, n_b: int, level: float = 0.95
) -> tuple[float, float]:
    """Interval for ``p_B - p_A`` from two independent samples (hybrid score).

    Args:
        passed_a: Passes in A.
        n_a: Sessions in A (> 0).
        passed_b: Passes in B.
        n_b: Sessions in B (> 0).
        level: Confidence level in (0, 1).

    Returns:
        ``(lo, hi)`` within [-1, 1].

    Raises:
        ValueError: If a sample is empty or the counts are out of range.
    """
    if n_a == 0 or n_b == 0:
        raise ValueError("a difference of pass rates needs sessions in both runs")
    return _square_and_add(passed_a, n_a, passed_b, n_b, 0.0, level)


@dataclass(frozen=True, slots=True)
class PairedTable:
    """Paired pass/fail outcomes of the same sessions in runs A and B.

    Attributes:
        both_pass: Passed in A and in B.
        regressed: Passed in A, failed in B (McNemar's ``b``).
        fixed: Failed in A, passed in B (McNemar's ``c``).
        both_fail: Failed in A and in B.
    """

    both_pass: int = 0
    regressed: int = 0
    fixed: int = 0
    both_fail: int = 0

    @property
    def n(self) -> int:
        """Pairs in the table."""
        return self.both_pass + self.regressed + self.fixed + self.both_fail

    @property
    def passed_a(self) -> int:
        """Pairs that passed in A."""
        return self.both_pass + self.regressed

    @property
    def passed_b(self) -> int:
        """Pairs that passed in B."""
        return self.both_pass + self.fixed

    @property
    def delta(self) -> float | None:
        """``p_B - p_A`` over the pairs, ``(fixed - regressed) / n``; None without pairs."""
        return (self.fixed - self.regressed) / self.n if self.n else None

    def mcnemar(self) -> McNemar:
        """Exact McNemar test on the discordant pairs."""
        return mcnemar(self.regressed, self.fixed)

    def add(self, passed_a: bool, passed_b: bool) -> PairedTable:
        """This table with one more pair."""
        return PairedTable(
            self.both_pass + (passed_a and passed_b),
            self.regressed + (passed_a and not passed_b),
            self.fixed + (passed_b and not passed_a),
            self.both_fail + (not passed_a and not passed_b),
        )


def _phi(table: PairedTable) -> float:
    """Newcombe's continuity-corrected correlation of the paired outcomes (1998b, method 10)."""
    a, b, c, d = table.both_pass, table.regressed, table.fixed, table.both_fail
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if margins == 0 or 0 <= cross <= table.n / 2:
        return 0.0
    if cross > table.n / 2:
        return (cross - table.n / 2) / math.sqrt(margins)
    return cross / math.sqrt(margins)


def _square_and_add(
    passed_a: int, n_a: int, passed_b: int, n_b: int, correlation: float, level: float
) -> tuple[float, float]:
    """Combine the two Wilson intervals, given the correlation of the two estimated rates."""
    pa, pb = passed_a / n_a, passed_b / n_b
    la, ua = wilson_interval(passed_a, n_a, level)
    lb, ub = wilson_interval(passed_b, n_b, level)
    # The lower bound of B - A pairs B's lower error with A's upper error, and back.
    down_b, up_a = pb - lb, ua - pa
    up_b, down_a = ub - pb, pa - la
    diff = pb - pa
    lo = diff - math.sqrt(max(0.0, down_b**2 + up_a**2 - 2 * correlation * down_b * up_a))
    hi = diff + math.sqrt(max(0.0, up_b**2 + down_a**2 - 2 * correlation * up_b * down_a))
    return (max(-1.0, lo), min(1.0, hi))


def paired_newcombe_interval(table: PairedTable, level: float = 0.95) -> tuple[float, float]:
    """Interval for ``p_B - p_A`` over paired outcomes (Newcombe 1998b, method 10).

    The Wilson intervals of the two marginal rates are combined with phi, the
    correlation of the paired outcomes, continuity-corrected as Newcombe does:
    ``(ad - bc - n/2) / sqrt(...)`` when ``ad - bc > n/2``, 0 when it is in
    ``[0, n/2]``, uncorrected when negative, and 0 when a margin is empty.

    Args:
        table: The paired outcomes; at least one pair.
        level: Confidence level in (0, 1).

    Returns:
        ``(lo, hi)`` within [-1, 1].

    Raises:
        ValueError: If the table is empty.
    """
    if table.n == 0:
        raise ValueError("a paired difference needs at least one pair")
    return _square_and_add(table.passed_a, table.n, table.passed_b, table.n, _phi(table), level)


def _within(shared_passed: int, shared_n: int, passed: int, n: int) -> bool:
    """Whether ``shared_passed`` of ``shared_n`` sessions can be part of ``passed`` of ``n``."""
    return 0 <= shared_passed <= passed and 0 <= passed - shared_passed <= n - shared_n


def overlap_newcombe_interval(
    passed_a: int,
    n_a: int,
    passed_b: int,
    n_b: int,
    shared: PairedTable,
    level: float = 0.95,
) -> tuple[float, float]:
    """Interval for ``p_B - p_A`` when some sessions are in both samples.

    Two rates over partly overlapping sets of keys (a length bucket whose keys
    mostly stay in it): the estimated rates are correlated through the shared
    keys only, ``corr(p_A, p_B) = phi * m / sqrt(n_A * n_B)`` for ``m`` shared
    keys with outcome correlation ``phi``, and the Wilson intervals are combined
    with that correlation (square-and-add for correlated estimates, Zou and
    Donner 2008). With every key shared it is ``paired_newcombe_interval``;
    with none, ``newcombe_interval``.

    Args:
        passed_a: Passes in A.
        n_a: Sessions in A (> 0).
        passed_b: Passes in B.
        n_b: Sessions in B (> 0).
        shared: The paired outcomes of the keys in both samples (a subset of each).
        level: Confidence level in (0, 1).

    Returns:
        ``(lo, hi)`` within [-1, 1].

    Raises:
        ValueError: If a sample is empty or ``shared`` does not fit in the counts.
    """
    if n_a == 0 or n_b == 0:
        raise ValueError("a difference of pass rates needs sessions in both runs")
    m = shared.n
    if not (
        _within(shared.passed_a, m, passed_a, n_a) and _within(shared.passed_b, m, passed_b, n_b)
    ):
        raise ValueError("the shared sessions must be part of both samples")
    correlation = _phi(shared) * m / math.sqrt(n_a * n_b)
    return _square_and_add(passed_a, n_a, passed_b, n_b, correlation, level)


def overlap_newcombe_p_value(
    passed_a: int, n_a: int, passed_b: int, n_b: int, shared: PairedTable
) -> float:
    """Two-sided p-value of "no change" read off ``overlap_newcombe_interval``.

    The p-value is 1 - L for the largest level L whose interval still excludes
    0 (found by bisection), so it agrees with the interval shown: p < 0.05
    exactly when the 95% interval excludes 0.

    Args:
        passed_a: Passes in A.
        n_a: Sessions in A (> 0).
        passed_b: Passes in B.
        n_b: Sessions in B (> 0).
        shared: The paired outcomes of the keys in both samples.

    Returns:
        The p-value in [0, 1]; 1 when the rates are equal.
    """
    if passed_a * n_b == passed_b * n_a:
        return 1.0

    def excludes_zero(level: float) -> bool:
        lo, hi = overlap_newcombe_interval(passed_a, n_a, passed_b, n_b, shared, level)
        return lo > 0.0 or hi < 0.0

    lo_level, hi_level = 1e-9, 1.0 - 1e-15
    if excludes_zero(hi_level):
        return 1.0 - hi_level
    if not excludes_zero(lo_level):
        return 1.0
    for _ in range(60):  # interval widths are monotone in the level
        mid = (lo_level + hi_level) / 2.0
        if excludes_zero(mid):
            lo_level = mid
        else:
            hi_level = mid
    return 1.0 - lo_level

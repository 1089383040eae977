"""Fisher's exact test of two independent proportions."""

from __future__ import annotations

import math

# Tables whose probability is within this relative distance of the observed one
# count as "as extreme" (R's fisher.test uses the same tolerance against rounding).
_RELATIVE_TOLERANCE = 1e-7


def _log_hypergeom(k: int, n_a: int, n_b: int, passed: int) -> float:
    """log P(A has k of the passes) when ``passed`` passes fall at random among n_a + n_b."""

    def log_comb(n: int, r: int) -> float:
        return math.lgamma(n + 1) - math.lgamma(r + 1) - math.lgamma(n - r + 1)

    return log_comb(n_a, k) + log_comb(n_b, passed - k) - log_comb(n_a + n_b, passed)


def fisher_exact(passed_a: int, n_a: int, passed_b: int, n_b: int) -> float:
    """Two-sided p-value of Fisher's exact test that A and B share one pass rate.

    Conditional on the total passes, A's passes are hypergeometric; the p-value
    sums the probabilities of every table no more likely than the observed one.

    Args:
        passed_a: Passes in A.
        n_a: Sessions in A.
        passed_b: Passes in B.
        n_b: Sessions in B.

    Returns:
        The p-value in [0, 1]; 1 when a sample is empty or all outcomes agree.

    Raises:
        ValueError: If the counts are out of range.
    """
    if not (0 <= passed_a <= n_a and 0 <= passed_b <= n_b):
        raise ValueError(f"need 0 <= passed <= n, got {passed_a}/{n_a} and {passed_b}/{n_b}")
    passed = passed_a + passed_b
    if n_a == 0 or n_b == 0 or passed in (0, n_a + n_b):
        return 1.0
    lo, hi = max(0, passed - n_b), min(n_a, passed)
    observed = _log_hypergeom(passed_a, n_a, n_b, passed)
    threshold = observed + math.log1p(_RELATIVE_TOLERANCE)
    total = sum(
        math.exp(lp)
        for lp in (_log_hypergeom(k, n_a, n_b, passed) for k in range(lo, hi + 1))
        if lp <= threshold
    )
    return min(1.0, total)

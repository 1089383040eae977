"""Order-statistic intervals for quantiles, and the bootstrap of a ratio of sums."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simlab.stats import bootstrap_ratio_ci, quantile, quantile_ci


def test_median_interval_of_ten_is_the_2nd_and_9th_values() -> None:
    # Binomial(10, 0.5): P(B <= 1) = 11/1024 = 0.0107 <= 0.025 < P(B <= 2) = 0.0547,
    # so the ranks are 2 and 9 and the coverage is 1 - 2 * 0.0107 = 0.979
    values = [float(v) for v in range(10, 0, -1)]
    assert quantile_ci(values, 0.5) == (2.0, 9.0)
    assert quantile(values, 0.5) == 5.5


def test_p95_needs_72_values_at_95_percent() -> None:
    # the top value must have P(B = n) = 0.95^n <= 0.025: n >= 72
    assert quantile_ci([float(v) for v in range(71)], 0.95) is None
    lo, hi = quantile_ci([float(v) for v in range(72)], 0.95)  # type: ignore[misc]
    assert hi == 71.0 and lo < hi


def test_quantile_intervals_cover_at_least_their_level() -> None:
    rng = np.random.default_rng(12)
    for q, true in ((0.5, np.log(2)), (0.95, -np.log(0.05))):  # exponential(1) quantiles
        covered = 0
        runs = 400
        for _ in range(runs):
            ci = quantile_ci(list(rng.exponential(size=120)), q)
            assert ci is not None
            covered += ci[0] <= true <= ci[1]
        assert covered / runs >= 0.92, (q, covered)  # nominal >= 0.95, noise of 400 runs


def test_ratio_of_sums_interval() -> None:
    cost = [1.0, 2.0, 3.0, 4.0]
    passed = [1.0, 0.0, 1.0, 1.0]
    lo, hi = bootstrap_ratio_ci(cost, passed, seed=3)  # type: ignore[misc]
    assert lo <= 10 / 3 <= hi
    assert bootstrap_ratio_ci(cost, [0.0] * 4, seed=3) is None


def test_a_ratio_whose_resamples_often_have_no_pass_is_unbounded_above() -> None:
    # 30 sessions, 2 passes: about (28/30)^30 = 12.6% of resamples hold no pass, more
    # than the 2.5% an upper bound may leave out, so the cost per pass is unbounded above
    cost = [1.0] * 30
    passed = [1.0, 1.0] + [0.0] * 28
    got = bootstrap_ratio_ci(cost, passed, seed=5)
    assert got is not None
    lo, hi = got
    assert math.isinf(hi) and 0 < lo < 15.0
    # with every resample holding a pass, the interval is the usual finite one
    lo2, hi2 = bootstrap_ratio_ci([1.0] * 30, [1.0] * 20 + [0.0] * 10, seed=5)  # type: ignore[misc]
    assert lo2 <= 1.5 <= hi2 < 3
    with pytest.raises(ValueError, match="differ"):
        bootstrap_ratio_ci(cost, passed[:2], seed=3)

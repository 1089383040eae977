"""The two-level bootstrap against hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.stats import (
    Spread,
    pass_hat_k_statistics,
    score_differences,
    score_statistics,
    two_level_bootstrap,
)


def test_estimates_are_the_mean_over_cells_of_each_cells_statistics() -> None:
    # [0, 50, 100]: mean 50, P90 90, P10 10; [80, 100, 100]: mean 93.33, P90 100, P10 84
    out = two_level_bootstrap([[[0, 50, 100]], [[80, 100, 100]]], score_statistics, seed=1)
    assert [s.estimate for s in out] == pytest.approx([(50 + 280 / 3) / 2, 95.0, 48.0])


def test_cells_without_inner_spread_resample_between_cells_only() -> None:
    # Two constant cells, 100 and 0: a resample draws each cell twice (1/4), or one of
    # each (1/2), so its mean is 0, 50 or 100 with chance 1/4, 1/2, 1/4. Centred on their
    # mean (about 50), the 2.5% and 97.5% quantiles are about -50 and +50: [0, 100].
    (mean, apt, unrel) = two_level_bootstrap(
        [[[100.0, 100.0]], [[0.0, 0.0]]], score_statistics, seed=3, bounds=(0, 100)
    )
    assert mean.estimate == 50.0 and mean.ci == pytest.approx((0.0, 100.0), abs=3.0)
    assert apt.ci == pytest.approx((0.0, 100.0), abs=3.0)
    # every resampled cell has P90 - P10 = 0: no spread, and no zero-width interval
    assert unrel.no_spread and unrel.ci is None and unrel.estimate == 0.0


def test_inner_spread_alone_still_gives_an_interval() -> None:
    # Two identical cells [0, 100]: the cells-only bootstrap would give [50, 50]. Within a
    # cell the resampled mean is 0, 50, 100 (1/4, 1/2, 1/4); over two cells the mean is
    # 0, 25, 50, 75, 100 with chance 1, 4, 6, 4, 1 out of 16: quantiles 0 and 100.
    mean = two_level_bootstrap([[[0.0, 100.0]], [[0.0, 100.0]]], score_statistics, seed=5)[0]
    assert mean.estimate == 50.0
    assert mean.ci == pytest.approx((0.0, 100.0), abs=3.0)


def test_every_score_equal_has_no_spread() -> None:
    out = two_level_bootstrap([[[100.0] * 8]] * 12, score_statistics, seed=0)
    assert all(s.no_spread and s.ci is None for s in out)
    assert [s.estimate for s in out] == [100.0, 100.0, 0.0]


def test_one_cell_has_no_interval_and_seeds_repeat() -> None:
    (one,) = two_level_bootstrap([[[0.0, 1.0, 1.0]]], pass_hat_k_statistics(1), seed=0)
    assert one.estimate == pytest.approx(2 / 3) and one.ci is None and not one.no_spread
    units = [[[0.0, 1.0, 1.0]], [[1.0, 1.0]], [[0.0, 0.0, 1.0, 1.0]]]  # ragged trials

    def run() -> list[Spread]:
        stat = pass_hat_k_statistics(2)
        return two_level_bootstrap(units, stat, seed=9, n_resamples=300, bounds=(0.0, 1.0))

    a = run()
    assert a == run()
    # pass^2 by hand: C(2,2)/C(3,2) = 1/3, 1, C(2,2)/C(4,2) = 1/6
    assert a[1].estimate == pytest.approx((1 / 3 + 1 + 1 / 6) / 3)
    for s in a:
        assert s.ci is not None and 0.0 <= s.ci[0] <= s.estimate <= s.ci[1] <= 1.0


def test_pass_hat_k_statistics_match_the_binomial_ratio() -> None:
    trials = np.array([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    got = pass_hat_k_statistics(3)([trials])
    # c=3: 3/4, C(3,2)/C(4,2) = 1/2, C(3,3)/C(4,3) = 1/4; c=2: 1/2, 1/6, 0
    assert got == pytest.approx(np.array([[0.75, 0.5, 0.25], [0.5, 1 / 6, 0.0]]))


def test_score_differences_subtract_the_first_cell() -> None:
    a = np.array([[0.0, 50.0, 100.0]])
    b = np.array([[80.0, 100.0, 100.0]])
    assert score_differences([a, b]) == pytest.approx(np.array([[280 / 3 - 50, 10.0, -64.0]]))


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        two_level_bootstrap([], score_statistics, seed=0)
    with pytest.raises(ValueError):
        two_level_bootstrap([[[]]], score_statistics, seed=0)
    with pytest.raises(ValueError):
        two_level_bootstrap([[[1.0]]], score_statistics, seed=0, level=1.5)

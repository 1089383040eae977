"""Cohen's kappa against hand-computed examples, and its interval's coverage by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.stats import cohen_kappa, kappa_from_table


def test_hand_computed_two_by_two() -> None:
    # 50 items: both pass 20, first pass/second fail 5, first fail/second pass 10, both fail 15.
    # p_o = 35/50 = 0.7; marginals 0.5 / 0.6, so p_e = 0.5*0.6 + 0.5*0.4 = 0.5;
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    k = kappa_from_table([[20, 5], [10, 15]])
    assert (k.n, k.observed, k.expected) == (50, 0.7, pytest.approx(0.5))
    assert k.kappa == pytest.approx(0.4)
    # Wilson 95% for 35/50: centre (0.7 + z²/100) / (1 + z²/50) = 0.685731, half-width
    # z/(1 + z²/50) * sqrt(0.21/50 + z²/10000) = 0.123233 -> [0.562498, 0.808964];
    # mapped through (p - 0.5) / 0.5 -> [0.124996, 0.617928].
    assert k.observed_ci == pytest.approx((0.562498, 0.808964), abs=1e-5)
    assert k.ci == pytest.approx((0.124996, 0.617928), abs=1e-5)


def test_labels_in_any_category_order_give_the_same_kappa() -> None:
    first = [True] * 25 + [False] * 25
    second = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    assert cohen_kappa(first, second).kappa == pytest.approx(0.4)
    assert cohen_kappa(second, first).kappa == pytest.approx(0.4)
    flipped = [not x for x in first], [not x for x in second]
    assert cohen_kappa(*flipped).kappa == pytest.approx(0.4)


def test_three_categories_by_hand() -> None:
    # diagonal 10, 8, 6 of 30; row marginals 12/30, 10/30, 8/30; column 13/30, 9/30, 8/30.
    table = [[10, 1, 1], [2, 8, 0], [1, 0, 7]]
    k = kappa_from_table(table)
    p_e = (12 * 13 + 10 * 9 + 8 * 8) / 900  # = 310/900
    assert k.expected == pytest.approx(p_e)
    assert k.kappa == pytest.approx((25 / 30 - p_e) / (1 - p_e))


def test_perfect_and_chance_and_undefined() -> None:
    perfect = kappa_from_table([[12, 0], [0, 18]])
    assert perfect.kappa == 1.0 and perfect.ci[1] == 1.0
    assert perfect.ci[0] < 0.9  # 30 items cannot prove perfection: not a zero-width interval
    chance = kappa_from_table([[25, 25], [25, 25]])
    assert chance.kappa == pytest.approx(0.0)
    assert chance.ci[0] < 0.0 < chance.ci[1]
    one_category = kappa_from_table([[30, 0], [0, 0]])
    assert one_category.kappa is None and one_category.ci == (-1.0, 1.0)
    assert one_category.observed == 1.0
    assert kappa_from_table([[0, 0], [0, 0]]).kappa is None


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([True], [True, False])
    with pytest.raises(ValueError, match="square"):
        kappa_from_table([[1, 2]])
    with pytest.raises(ValueError, match=">= 0"):
        kappa_from_table([[1, -1], [0, 1]])
    with pytest.raises(ValueError, match="level"):
        kappa_from_table([[1, 0], [0, 1]], level=1.5)


@pytest.mark.parametrize(
    ("cells", "n"),
    [
        ((0.40, 0.10, 0.20, 0.30), 40),  # kappa 0.4
        ((0.80, 0.05, 0.05, 0.10), 40),  # kappa 0.61, raters mostly pass
        ((0.45, 0.02, 0.03, 0.50), 30),  # kappa 0.90
    ],
)
def test_interval_covers_the_true_kappa(cells: tuple[float, float, float, float], n: int) -> None:
    a, b, c, d = cells
    p_e = (a + b) * (a + c) + (c + d) * (b + d)
    true = (a + d - p_e) / (1 - p_e)
    rng = np.random.default_rng(11)
    draws = rng.multinomial(n, cells, 2000)
    hits = 0
    for x in draws:
        k = kappa_from_table([[int(x[0]), int(x[1])], [int(x[2]), int(x[3])]])
        hits += k.kappa is not None and k.ci[0] <= true <= k.ci[1]
    # 2000 replications: a Monte Carlo standard error of about 0.005
    assert 0.93 <= hits / 2000 <= 0.975

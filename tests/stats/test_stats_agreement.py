"""Cohen's kappa against hand-computed examples, and its interval's coverage by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.stats import agreement, balanced_accuracy, cohen_kappa, kappa_from_table


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


def _kappa(matrix: object) -> float | None:
    """The point kappa of a table of counts or of a joint distribution's shares."""
    shares = np.asarray(matrix, dtype=float)
    counts = np.rint(shares * (1_000_000 if shares.sum() <= 1.0 + 1e-9 else 1)).astype(int)
    return kappa_from_table(counts.tolist()).kappa


def _items(matrix: list[list[int]]) -> tuple[list[int], list[int]]:
    """Truth and prediction lists for a confusion matrix (rows: truth)."""
    truth: list[int] = []
    pred: list[int] = []
    for i, row in enumerate(matrix):
        for j, k in enumerate(row):
            truth += [i] * k
            pred += [j] * k
    return truth, pred


def test_two_by_two_by_hand() -> None:
    # p_o = 35/50 = 0.7; margins 25, 25 (truth) and 30, 20 (predicted):
    # p_e = (25*30 + 25*20) / 50^2 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4
    m = [[20, 5], [10, 15]]
    assert _kappa(m) == pytest.approx(0.4)
    assert balanced_accuracy(m) == pytest.approx((20 / 25 + 15 / 25) / 2)
    # kappa is symmetric, balanced accuracy is not (rows are the truth)
    assert _kappa(np.transpose(m)) == pytest.approx(0.4)
    assert balanced_accuracy(np.transpose(m)) == pytest.approx((20 / 30 + 15 / 20) / 2)


def test_three_classes_by_hand() -> None:
    # diagonal 18 of 25: p_o = 0.72; truth margins 12, 10, 3; predicted 11, 7, 7:
    # p_e = (12*11 + 10*7 + 3*7) / 625 = 223/625; recalls 10/12, 5/10, 3/3
    m = [[10, 2, 0], [1, 5, 4], [0, 0, 3]]
    p_e = 223 / 625
    assert _kappa(m) == pytest.approx((0.72 - p_e) / (1 - p_e))
    assert balanced_accuracy(m) == pytest.approx((10 / 12 + 0.5 + 1.0) / 3)
    truth, pred = _items(m)
    a = agreement(truth, pred, labels=[0, 1, 2])
    assert a.n == 25 and a.classes == 3
    assert a.accuracy == pytest.approx(0.72)
    assert a.kappa == pytest.approx((0.72 - p_e) / (1 - p_e))
    assert a.majority_accuracy == pytest.approx(12 / 25)
    assert a.kappa_ci is not None and a.kappa_ci[0] < a.kappa < a.kappa_ci[1]
    assert a.balanced_ci is not None and a.balanced_ci[0] < a.balanced_accuracy < a.balanced_ci[1]  # type: ignore[operator]


def test_always_the_majority_answer_scores_kappa_zero_and_balanced_one_over_classes() -> None:
    truth = ["anchoring"] * 86 + ["truncation"] * 10 + ["drift"] * 4
    a = agreement(truth, ["anchoring"] * 100)
    assert a.accuracy == pytest.approx(0.86) and a.majority_accuracy == pytest.approx(0.86)
    assert a.kappa == pytest.approx(0.0)
    assert a.balanced_accuracy == pytest.approx(1 / 3)


def test_undefined_and_bad_input() -> None:
    assert _kappa([[5, 0], [0, 0]]) is None  # one label on both sides: p_e = 1
    assert _kappa([[0, 0], [0, 0]]) is None and balanced_accuracy([[0]]) is None
    empty = agreement([], [])
    assert empty.n == 0 and empty.accuracy is None and empty.kappa is None
    with pytest.raises(ValueError, match="square"):
        kappa_from_table([[1, 2, 3]])
    with pytest.raises(ValueError, match="items"):
        agreement([1, 2], [1])
    with pytest.raises(ValueError, match="not in the label list"):
        agreement(["a"], ["b"], labels=["a"])


def test_the_same_seed_gives_the_same_intervals() -> None:
    truth, pred = _items([[30, 4, 1], [3, 9, 2], [2, 1, 6]])
    assert agreement(truth, pred, seed=3) == agreement(truth, pred, seed=3)


def _population(joint: np.ndarray) -> tuple[float, float]:
    kappa = _kappa(joint)
    balanced = balanced_accuracy(joint)
    assert kappa is not None and balanced is not None
    return kappa, balanced


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_population_values() -> None:
    """Coverage of the 95% intervals of kappa and balanced accuracy over 400 samples
    of n = 150 from an unbalanced three-class population (one class 80%)."""
    joint = np.array([[0.72, 0.05, 0.03], [0.02, 0.08, 0.02], [0.01, 0.01, 0.06]])
    kappa, balanced = _population(joint)
    rng = np.random.default_rng(11)
    cells = rng.choice(9, size=(400, 150), p=joint.ravel())
    hit_k = hit_b = 0
    for i, sample in enumerate(cells):
        a = agreement(list(sample // 3), list(sample % 3), labels=[0, 1, 2], seed=i)
        assert a.kappa_ci is not None and a.balanced_ci is not None
        hit_k += a.kappa_ci[0] <= kappa <= a.kappa_ci[1]
        hit_b += a.balanced_ci[0] <= balanced <= a.balanced_ci[1]
    print(
        f"coverage over 400 samples of n=150: kappa {hit_k / 400:.3f}, balanced {hit_b / 400:.3f}"
    )
    assert 0.91 <= hit_k / 400 <= 0.98
    assert 0.91 <= hit_b / 400 <= 0.98

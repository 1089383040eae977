"""Accuracy, Cohen's kappa and balanced accuracy against hand-computed values, and
the coverage of their bootstrap intervals in simulation."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.stats import agreement, balanced_accuracy, cohen_kappa


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
    assert cohen_kappa(m) == pytest.approx(0.4)
    assert balanced_accuracy(m) == pytest.approx((20 / 25 + 15 / 25) / 2)
    # kappa is symmetric, balanced accuracy is not (rows are the truth)
    assert cohen_kappa(np.transpose(m)) == pytest.approx(0.4)
    assert balanced_accuracy(np.transpose(m)) == pytest.approx((20 / 30 + 15 / 20) / 2)


def test_three_classes_by_hand() -> None:
    # diagonal 18 of 25: p_o = 0.72; truth margins 12, 10, 3; predicted 11, 7, 7:
    # p_e = (12*11 + 10*7 + 3*7) / 625 = 223/625; recalls 10/12, 5/10, 3/3
    m = [[10, 2, 0], [1, 5, 4], [0, 0, 3]]
    p_e = 223 / 625
    assert cohen_kappa(m) == pytest.approx((0.72 - p_e) / (1 - p_e))
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
    assert cohen_kappa([[5, 0], [0, 0]]) is None  # one label on both sides: p_e = 1
    assert cohen_kappa([[0, 0], [0, 0]]) is None and balanced_accuracy([[0]]) is None
    empty = agreement([], [])
    assert empty.n == 0 and empty.accuracy is None and empty.kappa is None
    with pytest.raises(ValueError, match="square"):
        cohen_kappa([[1, 2, 3]])
    with pytest.raises(ValueError, match="items"):
        agreement([1, 2], [1])
    with pytest.raises(ValueError, match="not in the label list"):
        agreement(["a"], ["b"], labels=["a"])


def test_the_same_seed_gives_the_same_intervals() -> None:
    truth, pred = _items([[30, 4, 1], [3, 9, 2], [2, 1, 6]])
    assert agreement(truth, pred, seed=3) == agreement(truth, pred, seed=3)


def _population(joint: np.ndarray) -> tuple[float, float]:
    kappa = cohen_kappa(joint)
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

"""Agreement between two raters beyond chance: Cohen's kappa with its interval.

For n items rated by both raters into categories, with ``p_ij`` the share rated
``i`` by the first and ``j`` by the second, ``p_o = sum_i p_ii`` the observed
agreement and ``p_e = sum_i p_i. p_.i`` the agreement expected by chance from
the raters' own marginals::

    kappa = (p_o - p_e) / (1 - p_e)

The interval maps the Wilson interval of the observed agreement through that
formula, chance agreement held at its estimate::

    [(lo_o - p_e) / (1 - p_e), (hi_o - p_e) / (1 - p_e)]

It keeps Wilson's behaviour at the edges (no disagreement in 30 items still
leaves room below 1, where the large-sample standard error of Fleiss, Cohen
and Everitt is 0). By simulation over two-category tables at 30, 50 and 100
items (``bench/validity/kappa_coverage.py``) it covered the true kappa in
94.5-97.9% of samples (the upper end, conservative, where both raters pass
most items), where the Wald interval with that standard error fell to 45-79%
at 30 items for kappa 0.9-0.96. Its shortfall: a rare failure class with
one-sided disagreement at 30 items (cells .90/.02/0/.08, kappa 0.88) covered
in 91.5% of 2,877 draws (95.7% at 100 items) — below nominal there, since
chance agreement is held at its estimate.

When both raters put every item in one and the same category, ``p_e = 1`` and
kappa is undefined (None): there is no variation to agree on.

A classifier against the truth (``agreement``): raw accuracy flatters it on an
unbalanced truth (when 86% of failures have one cause, always naming it scores
86%), so kappa and balanced accuracy (the mean recall over the true classes
present; the constant answer scores ``1 / classes``) stand beside it, with
seeded percentile-bootstrap intervals over the items and a Wilson interval for
accuracy.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simlab.stats._intervals import wilson_interval

_DEFAULT_RESAMPLES = 2000


@dataclass(frozen=True, slots=True)
class Kappa:
    """Cohen's kappa of two raters over the same items.

    Attributes:
        kappa: The estimate; None when undefined (``expected == 1``) or ``n == 0``.
        ci: Its interval at ``level``, within [-1, 1]; ``(-1.0, 1.0)`` when undefined.
        observed: The share of items both raters put in the same category.
        observed_ci: Wilson interval of ``observed``.
        expected: The agreement expected by chance from the two raters' marginals.
        n: Items rated by both.
        level: The confidence level.
    """

    kappa: float | None
    ci: tuple[float, float]
    observed: float | None
    observed_ci: tuple[float, float]
    expected: float | None
    n: int
    level: float


def cohen_kappa(
    first: Sequence[Hashable], second: Sequence[Hashable], level: float = 0.95
) -> Kappa:
    """Cohen's kappa of two raters' labels for the same items, in the same order.

    Args:
        first: The first rater's category for each item.
        second: The second rater's category for each item.
        level: Confidence level of the intervals.

    Returns:
        Kappa, its interval and the observed and chance agreement.

    Raises:
        ValueError: The sequences differ in length, or ``level`` is outside (0, 1).
    """
    if len(first) != len(second):
        raise ValueError(f"both raters must rate the same items: {len(first)} != {len(second)}")
    categories = list(dict.fromkeys([*first, *second]))
    index = {c: i for i, c in enumerate(categories)}
    table = [[0] * len(categories) for _ in categories]
    for a, b in zip(first, second, strict=True):
        table[index[a]][index[b]] += 1
    return kappa_from_table(table, level)


def kappa_from_table(table: Sequence[Sequence[int]], level: float = 0.95) -> Kappa:
    """Cohen's kappa from a square table of counts: ``table[i][j]`` items rated
    ``i`` by the first rater and ``j`` by the second.

    Raises:
        ValueError: The table is not square, has a negative count, or ``level``
            is outside (0, 1).
    """
    k = len(table)
    if any(len(row) != k for row in table):
        raise ValueError("the table of counts must be square (same categories for both raters)")
    if any(c < 0 for row in table for c in row):
        raise ValueError("counts must be >= 0")
    n = sum(sum(row) for row in table)
    agree = sum(table[i][i] for i in range(k))
    observed_ci = wilson_interval(agree, n, level)
    if n == 0:
        return Kappa(None, (-1.0, 1.0), None, observed_ci, None, 0, level)
    rows = [sum(table[i]) / n for i in range(k)]
    cols = [sum(table[i][j] for i in range(k)) / n for j in range(k)]
    p_o = agree / n
    p_e = sum(rows[i] * cols[i] for i in range(k))
    if p_e >= 1.0 - 1e-12:
        return Kappa(None, (-1.0, 1.0), p_o, observed_ci, p_e, n, level)

    def scaled(p: float) -> float:
        return (p - p_e) / (1.0 - p_e)

    bounds = (max(-1.0, scaled(observed_ci[0])), min(1.0, scaled(observed_ci[1])))
    return Kappa(
        scaled(p_o),
        bounds,
        p_o,
        observed_ci,
        p_e,
        n,
        level,
    )


def _square(matrix: ArrayLike) -> NDArray[np.float64]:
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise ValueError(f"need a non-empty square confusion matrix, got shape {m.shape}")
    if (m < 0).any():
        raise ValueError("confusion counts must be >= 0")
    return m


def balanced_accuracy(matrix: ArrayLike) -> float | None:
    """The mean recall over the classes present in the truth.

    Args:
        matrix: Counts, ``matrix[i][j]`` = items of true label ``i`` predicted as ``j``
            (rows are the truth: this statistic is not symmetric).

    Returns:
        The balanced accuracy, or ``None`` when there are no items.

    Raises:
        ValueError: The matrix is not square or has negative counts.
    """
    m = _square(matrix)
    rows = m.sum(axis=1)
    present = rows > 0
    if not present.any():
        return None
    recall = np.diag(m)[present] / rows[present]
    return float(recall.mean())


@dataclass(frozen=True, slots=True)
class Agreement:
    """How a classifier agrees with the truth over ``n`` items, with 95% intervals.

    Attributes:
        n: Items compared.
        classes: Distinct true labels among them.
        accuracy: Share of items where prediction equals truth (``None`` when ``n == 0``).
        accuracy_ci: Its Wilson interval.
        kappa: Cohen's kappa (``None`` when undefined).
        kappa_ci: Its percentile-bootstrap interval over items (``None`` when undefined).
        balanced_accuracy: Mean per-class recall over the true classes present.
        balanced_ci: Its percentile-bootstrap interval over items.
        majority_accuracy: The accuracy of always answering the most common true label,
            the baseline raw accuracy must be read against.
    """

    n: int
    classes: int
    accuracy: float | None
    accuracy_ci: tuple[float, float]
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    balanced_accuracy: float | None
    balanced_ci: tuple[float, float] | None
    majority_accuracy: float | None


def _codes(
    truth: Sequence[Hashable], predicted: Sequence[Hashable], labels: Sequence[Hashable] | None
) -> tuple[NDArray[np.intp], NDArray[np.intp], int]:
    if len(truth) != len(predicted):
        raise ValueError(f"truth has {len(truth)} items, predicted {len(predicted)}")
    names = list(labels) if labels is not None else list(dict.fromkeys([*truth, *predicted]))
    index = {label: i for i, label in enumerate(names)}
    unknown = sorted({repr(x) for x in (*truth, *predicted) if x not in index})
    if unknown:
        raise ValueError(f"labels not in the label list: {', '.join(unknown)}")
    t = np.fromiter((index[x] for x in truth), dtype=np.intp, count=len(truth))
    p = np.fromiter((index[x] for x in predicted), dtype=np.intp, count=len(predicted))
    return t, p, max(1, len(names))


def _bootstrap(
    t: NDArray[np.intp], p: NDArray[np.intp], k: int, seed: int, n_resamples: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Kappa and balanced accuracy of each resample of the items (NaN where undefined)."""
    n = len(t)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    cell = t[idx] * k + p[idx] + (np.arange(n_resamples) * k * k)[:, None]
    counts = np.bincount(cell.ravel(), minlength=n_resamples * k * k).reshape(n_resamples, k, k)
    counts = counts.astype(np.float64)
    rows = counts.sum(axis=2)
    cols = counts.sum(axis=1)
    diag = np.einsum("bii->bi", counts)
    p_o = diag.sum(axis=1) / n
    p_e = (rows * cols).sum(axis=1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(p_e < 1.0 - 1e-12, (p_o - p_e) / (1.0 - p_e), np.nan)
        recall = np.where(rows > 0, diag / rows, np.nan)
    balanced = np.nanmean(recall, axis=1)
    return kappa, balanced


def _percentile(values: NDArray[np.float64], level: float) -> tuple[float, float] | None:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def agreement(
    truth: Sequence[Hashable],
    predicted: Sequence[Hashable],
    labels: Sequence[Hashable] | None = None,
    seed: int = 0,
    n_resamples: int = _DEFAULT_RESAMPLES,
    level: float = 0.95,
) -> Agreement:
    """Accuracy, Cohen's kappa and balanced accuracy of ``predicted`` against ``truth``.

    Args:
        truth: The true label of each item.
        predicted: The classifier's label of each item (same length).
        labels: Every label that may occur (default: those that do, in order of appearance).
        seed: Seed of the bootstrap; the same seed gives the same intervals.
        n_resamples: Bootstrap resamples for the kappa and balanced-accuracy intervals.
        level: Confidence level in (0, 1).

    Returns:
        The agreement, with ``n`` and intervals.

    Raises:
        ValueError: Lengths differ, a label is not in ``labels``, or the level is out of range.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    t, p, k = _codes(truth, predicted, labels)
    n = len(t)
    if n == 0:
        return Agreement(0, 0, None, (0.0, 1.0), None, None, None, None, None)
    matrix = np.zeros((k, k))
    np.add.at(matrix, (t, p), 1.0)
    hits = int(np.trace(matrix))
    kappa = kappa_from_table(matrix.astype(int).tolist(), level).kappa
    balanced = balanced_accuracy(matrix)
    boot_kappa, boot_balanced = _bootstrap(t, p, k, seed, n_resamples)
    return Agreement(
        n=n,
        classes=int((matrix.sum(axis=1) > 0).sum()),
        accuracy=hits / n,
        accuracy_ci=wilson_interval(hits, n, level),
        kappa=kappa,
        kappa_ci=_percentile(boot_kappa, level) if kappa is not None else None,
        balanced_accuracy=balanced,
        balanced_ci=_percentile(boot_balanced, level),
        majority_accuracy=float(matrix.sum(axis=1).max()) / n,
    )

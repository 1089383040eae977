"""Agreement of a classifier with the truth: accuracy, Cohen's kappa, balanced accuracy.

Raw accuracy flatters a classifier on an unbalanced truth: when 86% of the
failures have one cause, always naming it scores 86%. Cohen's kappa measures
agreement beyond what the two marginal distributions give by chance (0 for
the constant answer, 1 for perfect agreement); balanced accuracy is the mean
of the per-class recalls over the classes present in the truth (the constant
answer scores ``1 / classes``).

Intervals: Wilson for accuracy (a proportion); a percentile bootstrap over the
items for kappa and balanced accuracy, seeded, so the same data give the same
interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simlab.stats._intervals import wilson_interval

_DEFAULT_RESAMPLES = 2000


def _square(matrix: ArrayLike) -> NDArray[np.float64]:
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise ValueError(f"need a non-empty square confusion matrix, got shape {m.shape}")
    if (m < 0).any():
        raise ValueError("confusion counts must be >= 0")
    return m


def cohen_kappa(matrix: ArrayLike) -> float | None:
    """Cohen's kappa of a confusion matrix of counts (rows and columns: the same labels).

    ``kappa = (p_o - p_e) / (1 - p_e)``, with ``p_o`` the share on the diagonal
    and ``p_e`` the agreement expected from the row and column margins. It is
    symmetric: which of rows and columns is the truth does not matter.

    Returns:
        Kappa, or ``None`` when it is undefined (no items, or ``p_e == 1``:
        both sides always give the same single label).

    Raises:
        ValueError: The matrix is not square or has negative counts.
    """
    m = _square(matrix)
    n = m.sum()
    if n == 0:
        return None
    p_o = float(np.trace(m)) / n
    p_e = float((m.sum(axis=1) * m.sum(axis=0)).sum()) / (n * n)
    if p_e >= 1.0 - 1e-12:
        return None
    return float((p_o - p_e) / (1.0 - p_e))


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
    kappa = cohen_kappa(matrix)
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

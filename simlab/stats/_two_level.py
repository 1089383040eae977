"""Two-level bootstrap: resample cells, then repetitions within each cell.

A group's aptitude is the mean over its cells of each cell's P90 over its R
repetitions. Its estimand is that mean's expectation: the expected P90 of R
draws, averaged over the cells. Resampling cells alone treats each cell's P90
as known, so with R = 8 its interval missed the truth most of the time;
resampling repetitions within cells as well carries the within-cell noise. A
resampled P90 of R values resampled from R is biased low (the top value is
often left out), so the interval is the distribution of the resampled means
*around their own mean*, added to the estimate (a bias-centred percentile
interval), then clipped to the statistic's range. Coverage, measured by
``bench/validity/interval_coverage.py``, is at or above the nominal level:
resampling cells too counts the spread between cells, which makes the
interval conservative when cells differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simlab.stats._intervals import _check_level

# Resample in blocks of about this many drawn repetitions: memory stays bounded.
_BLOCK_VALUES = 1 << 21

Statistic = Callable[[Sequence[np.ndarray]], np.ndarray]
"""Per-unit statistics: given each part's values as an ``(m, R_part)`` array for m
units, return an ``(m, s)`` array of s statistics."""


@dataclass(frozen=True, slots=True)
class Spread:
    """An estimate and its interval, or the honest absence of one.

    Attributes:
        estimate: Mean over units of the statistic.
        ci: The interval; None when ``no_spread`` or with fewer than two units.
        no_spread: Every resample gave the same value (e.g. all scores 100):
            a zero-width "interval" would claim certainty it does not have.
    """

    estimate: float
    ci: tuple[float, float] | None
    no_spread: bool


def _group_by_lengths(
    units: Sequence[Sequence[Sequence[float]]],
) -> dict[tuple[int, ...], list[int]]:
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, unit in enumerate(units):
        groups.setdefault(tuple(len(part) for part in unit), []).append(i)
    return groups


def two_level_bootstrap(
    units: Sequence[Sequence[Sequence[float]]],
    statistic: Statistic,
    seed: int,
    n_resamples: int = 2000,
    level: float = 0.95,
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> list[Spread]:
    """Bias-centred two-level percentile bootstrap of the mean over units of a statistic.

    Each resample draws as many units as there are, with replacement, and
    within each drawn unit redraws each part's repetitions with replacement
    (a part is a cell's scores; a unit holds one part, or two for a paired
    difference of two cells). The interval is ``estimate + quantiles of
    (resampled mean - mean of resampled means)``, clipped to ``bounds``.

    Args:
        units: Per unit, its parts; per part, its repetitions' values (at least one).
        statistic: The per-unit statistics (see ``Statistic``).
        seed: Seed of the numpy Generator; the same seed gives the same intervals.
        n_resamples: Bootstrap resamples.
        level: Confidence level in (0, 1).
        bounds: The statistics' range, to which intervals are clipped.

    Returns:
        One ``Spread`` per statistic; no interval from a single unit (its
        between-unit spread is unknown).

    Raises:
        ValueError: If there is no unit, a part is empty or the arguments are out of range.
    """
    _check_level(level)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not units or any(len(part) == 0 for unit in units for part in unit):
        raise ValueError("two-level bootstrap needs units with non-empty parts")
    n_parts = len(units[0])
    if any(len(unit) != n_parts for unit in units):
        raise ValueError("every unit needs the same number of parts")
    groups = _group_by_lengths(units)
    arrays = {
        lengths: [
            np.array([units[i][p] for i in members], dtype=np.float64) for p in range(n_parts)
        ]
        for lengths, members in groups.items()
    }
    per_unit = np.empty((len(units), 0))
    for lengths, members in groups.items():
        values = statistic(arrays[lengths])
        if per_unit.shape[1] == 0:
            per_unit = np.empty((len(units), values.shape[1]))
        per_unit[members] = values
    estimates = per_unit.mean(axis=0)
    n_units, n_stats = len(units), per_unit.shape[1]
    if n_units < 2:
        return [Spread(float(e), None, False) for e in estimates]
    means = _resampled_means(units, groups, arrays, statistic, seed, n_resamples, n_stats)
    alpha = (1.0 - level) / 2.0
    centred = means - means.mean(axis=0)
    q = np.quantile(centred, [alpha, 1.0 - alpha], axis=0)
    out = []
    for j in range(n_stats):
        est = float(estimates[j])
        if np.ptp(means[:, j]) == 0.0:
            out.append(Spread(est, None, True))
            continue
        lo = float(np.clip(est + q[0, j], *bounds))
        hi = float(np.clip(est + q[1, j], *bounds))
        out.append(Spread(est, (lo, hi), False) if hi > lo else Spread(est, None, True))
    return out


def _resampled_means(
    units: Sequence[Sequence[Sequence[float]]],
    groups: dict[tuple[int, ...], list[int]],
    arrays: dict[tuple[int, ...], list[np.ndarray]],
    statistic: Statistic,
    seed: int,
    n_resamples: int,
    n_stats: int,
) -> np.ndarray:
    """``(n_resamples, n_stats)`` means over resampled units of their resampled statistics."""
    rng = np.random.default_rng(seed)
    n_units = len(units)
    # where each unit sits inside its group's arrays
    group_of = np.empty(n_units, dtype=np.int64)
    row_of = np.empty(n_units, dtype=np.int64)
    keys = list(groups)
    for g, lengths in enumerate(keys):
        for r, i in enumerate(groups[lengths]):
            group_of[i], row_of[i] = g, r
    max_len = [max(len(unit[p]) for unit in units) for p in range(len(units[0]))]
    flats = [[a.ravel() for a in arrays[lengths]] for lengths in keys]
    block = max(1, _BLOCK_VALUES // (n_units * sum(max_len)))
    means = np.empty((n_resamples, n_stats))
    for start in range(0, n_resamples, block):
        nb = min(block, n_resamples - start)
        drawn = rng.integers(0, n_units, size=(nb, n_units))
        uniforms = [rng.random((nb, n_units, r)) for r in max_len]
        if len(keys) == 1:  # every unit has the same lengths: no selection needed
            parts = [
                _gather(flats[0][p], length, drawn, uniforms[p]) for p, length in enumerate(keys[0])
            ]
            values = statistic(parts).reshape(nb, n_units, n_stats)
            means[start : start + nb] = values.mean(axis=1)
            continue
        sums = np.zeros((nb, n_stats))
        drawn_group = group_of[drawn]
        for g, lengths in enumerate(keys):
            where = np.nonzero(drawn_group == g)
            if where[0].size == 0:
                continue
            rows = row_of[drawn[where]]
            parts = [
                _gather(flats[g][p], length, rows, uniforms[p][where])
                for p, length in enumerate(lengths)
            ]
            values = statistic(parts)
            for j in range(n_stats):
                sums[:, j] += np.bincount(where[0], weights=values[:, j], minlength=nb)
        means[start : start + nb] = sums / n_units
    return means


def _gather(flat: np.ndarray, length: int, rows: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Repetitions redrawn within drawn cells: ``(m, length)`` values for ``rows`` of
    a ``(cells, length)`` array stored flat; rep i is ``floor(u * length)`` of the
    first ``length`` uniforms."""
    idx = (uniforms[..., :length] * length).astype(np.int64)
    picked = flat[rows[..., None] * length + idx]
    return picked.reshape(-1, length)


def _percentiles(sorted_rows: np.ndarray, q: float) -> np.ndarray:
    """Linear-interpolation percentile of each sorted row (``numpy.percentile``'s default)."""
    n = sorted_rows.shape[1]
    h = (n - 1) * q / 100.0
    lo = int(np.floor(h))
    if lo >= n - 1:
        top: np.ndarray = sorted_rows[:, -1]
        return top
    out: np.ndarray = sorted_rows[:, lo] + (h - lo) * (sorted_rows[:, lo + 1] - sorted_rows[:, lo])
    return out


def score_statistics(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Per cell: mean score, aptitude (P90) and unreliability (P90 - P10) of its reps."""
    ordered = np.sort(parts[0], axis=1)
    p90 = _percentiles(ordered, 90.0)
    return np.column_stack([ordered.mean(axis=1), p90, p90 - _percentiles(ordered, 10.0)])


def score_differences(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Per pair of cells: the second cell's score statistics minus the first's."""
    out: np.ndarray = score_statistics(parts[1:]) - score_statistics(parts[:1])
    return out


def pass_hat_k_statistics(k_max: int) -> Statistic:
    """Per task: pass^k = C(c, k) / C(n, k) for k = 1..k_max, c passes (1.0) of n trials."""

    def statistic(parts: Sequence[np.ndarray]) -> np.ndarray:
        trials = parts[0]
        n = trials.shape[1]
        c = trials.sum(axis=1)
        out = np.empty((trials.shape[0], k_max))
        running = np.ones(trials.shape[0])
        for i in range(k_max):  # C(c, k) / C(n, k) = prod_{i<k} (c - i) / (n - i)
            running = running * np.maximum(c - i, 0.0) / (n - i)
            out[:, i] = running
        return out

    return statistic

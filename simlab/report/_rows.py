"""One summary row: pass counts with a Wilson interval, and the cell-level
aptitude and unreliability of its sessions with seeded bootstrap intervals."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.stats import aptitude, bootstrap_means_ci, unreliability, wilson_interval
from simlab.store import SessionRecord

Cell = tuple[str, str, str, tuple[str, ...]]
Row = dict[str, Any]

_DIGITS = 6  # enough that the printed one-decimal percentages are never double-rounded


@dataclass(frozen=True, slots=True)
class Settings:
    """How intervals are computed: confidence level and bootstrap resamples/seed."""

    seed: int
    level: float = 0.95
    n_resamples: int = 2000


def rnd(x: float | None) -> float | None:
    """A float rounded for JSON, or None."""
    return None if x is None else round(float(x), _DIGITS)


def interval(pair: tuple[float, float] | None) -> list[float] | None:
    """An interval as a rounded ``[lo, hi]`` list, or None."""
    return None if pair is None else [round(pair[0], _DIGITS), round(pair[1], _DIGITS)]


def group_seed(seed: int, *parts: str) -> int:
    """The bootstrap seed of one group: sha256 over the run's seed and the group's name.

    Each group gets its own stream, independent of record order and of which
    other groups exist, so adding a persona never moves another persona's interval.
    """
    text = "\x1f".join([str(seed), *parts])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def pass_fields(ok: Sequence[SessionRecord], n_errors: int, level: float) -> Row:
    """n, passes, pass rate and its Wilson interval; errors are counted apart."""
    n = len(ok)
    passes = sum(1 for r in ok if r.passed is True)
    return {
        "n": n,
        "passes": passes,
        "pass_rate": rnd(passes / n) if n else None,
        "pass_ci": interval(wilson_interval(passes, n, level)),
        "n_errors": n_errors,
    }


def cell_scores(ok: Iterable[SessionRecord]) -> dict[Cell, list[float]]:
    """Scores of graded sessions, grouped by cell (sessions without a score skipped)."""
    out: dict[Cell, list[float]] = {}
    for r in ok:
        if r.score is not None:
            out.setdefault(r.key.cell, []).append(r.score)
    return out


def cell_metrics(scores: Sequence[float]) -> tuple[float, float, float]:
    """A cell's (mean score, aptitude, unreliability)."""
    return (sum(scores) / len(scores), aptitude(scores), unreliability(scores))


_SPREAD = ("mean_score", "aptitude", "unreliability")


def spread_fields(metrics: np.ndarray, settings: Settings, *group: str) -> Row:
    """Means over cells of (mean score, aptitude, unreliability), with bootstrap intervals.

    Args:
        metrics: ``(n_cells, 3)`` array of per-cell mean, aptitude, unreliability.
        settings: Level, resamples and the run's bootstrap seed.
        *group: The group's name parts, from which its bootstrap seed is derived.

    Returns:
        ``n_cells`` and each metric with its ``_ci``; intervals are None with
        fewer than two cells (one cell says nothing about between-cell spread).
    """
    n_cells = int(metrics.shape[0])
    out: Row = {"n_cells": n_cells}
    if n_cells == 0:
        out.update({name: None for name in _SPREAD})
        out.update({f"{name}_ci": None for name in _SPREAD})
        return out
    means = metrics.mean(axis=0)
    cis: list[tuple[float, float] | None] = [None] * len(_SPREAD)
    if n_cells >= 2:
        seed = group_seed(settings.seed, *group)
        cis = list(bootstrap_means_ci(metrics, seed, settings.n_resamples, settings.level))
    for j, name in enumerate(_SPREAD):
        out[name] = rnd(float(means[j]))
        out[f"{name}_ci"] = interval(cis[j])
    return out


CellMetrics = dict[Cell, tuple[float, float, float]]


def whole_cell_metrics(ok: Iterable[SessionRecord]) -> CellMetrics:
    """Every cell's (mean score, aptitude, unreliability), computed once per run."""
    return {cell: cell_metrics(scores) for cell, scores in cell_scores(ok).items()}


def _metrics_array(rows: list[tuple[float, float, float]]) -> np.ndarray:
    return np.array(rows, dtype=np.float64).reshape(len(rows), 3)


def group_row(
    records: Sequence[SessionRecord],
    settings: Settings,
    *group: str,
    whole_cells: CellMetrics | None = None,
) -> Row:
    """The full row of a group of sessions (ok and error mixed; errors only counted).

    Args:
        records: The group's sessions.
        settings: Level, resamples and the run's bootstrap seed.
        *group: The group's name parts (dimension, name), seeding its bootstrap.
        whole_cells: Precomputed metrics of whole cells, for groups made of
            whole cells (persona, mode, goal, overall). Without it the cells are
            the group's own sessions grouped by cell, so in a length bucket a
            cell holds only its reps of that length.

    Returns:
        Pass fields and spread fields of the group.
    """
    ok = [r for r in records if r.status == "ok"]
    row = pass_fields(ok, len(records) - len(ok), settings.level)
    if whole_cells is None:
        by_cell = cell_scores(ok)
        metrics = [cell_metrics(by_cell[c]) for c in sorted(by_cell)]
    else:
        cells = {r.key.cell for r in ok if r.score is not None}
        metrics = [whole_cells[c] for c in sorted(cells)]
    row.update(spread_fields(_metrics_array(metrics), settings, *group))
    return row

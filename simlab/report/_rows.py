"""One summary row: pass counts with a Wilson interval, and the cell-level
aptitude and unreliability of its sessions with seeded two-level bootstrap
intervals (cells, then repetitions within cells: ``simlab.stats.two_level_bootstrap``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from simlab.stats import (
    aptitude,
    score_differences,
    score_statistics,
    two_level_bootstrap,
    unreliability,
    wilson_interval,
)
from simlab.store import SessionRecord

Cell = tuple[str, str, str, tuple[str, ...]]
Row = dict[str, Any]

_DIGITS = 6  # enough that the printed one-decimal percentages are never double-rounded

MIN_REPS_PER_CELL = 2
"""Fewest repetitions a cell needs in a length bucket to count in the bucket's
aptitude and unreliability: one repetition's P90 - P10 is 0 by construction."""


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

Units = list[list[list[float]]]
"""Per unit, its parts (one cell's scores, or two cells' for a paired difference)."""


def spread_fields(units: Units, settings: Settings, *group: str, paired: bool = False) -> Row:
    """Means over cells of (mean score, aptitude, unreliability), with two-level intervals.

    Args:
        units: Per cell its scores as ``[scores]``; with ``paired``, per pair of
            cells ``[first cell's scores, second cell's scores]``.
        settings: Level, resamples and the run's bootstrap seed.
        *group: The group's name parts, from which its bootstrap seed is derived.
        paired: Whether each unit is a pair and the figure their difference.

    Scores enter the resampling in sorted order, so the intervals do not depend on
    the order of the records.

    Returns:
        ``n_cells``, the repetitions per cell (``reps_min``, ``reps_max``) and each
        metric with its ``_ci``: None with fewer than two cells (one cell says
        nothing about between-cell spread) and None with ``_no_spread`` true
        when every resample gave the same value (e.g. every score 100).
    """
    n_cells = len(units)
    reps = [len(part) for unit in units for part in unit]
    out: Row = {
        "n_cells": n_cells,
        "reps_min": min(reps, default=0),
        "reps_max": max(reps, default=0),
    }
    if n_cells == 0:
        for name in _SPREAD:
            out.update({name: None, f"{name}_ci": None, f"{name}_no_spread": False})
        return out
    spreads = two_level_bootstrap(
        [[sorted(part) for part in unit] for unit in units],
        score_differences if paired else score_statistics,
        group_seed(settings.seed, *group),
        settings.n_resamples,
        settings.level,
        (-100.0, 100.0) if paired else (0.0, 100.0),
    )
    for name, sp in zip(_SPREAD, spreads, strict=True):
        out[name] = rnd(sp.estimate)
        out[f"{name}_ci"] = interval(sp.ci)
        out[f"{name}_no_spread"] = sp.no_spread
    return out


CellMetrics = dict[Cell, tuple[float, float, float]]


def whole_cell_metrics(ok: Iterable[SessionRecord]) -> CellMetrics:
    """Every cell's (mean score, aptitude, unreliability), computed once per run."""
    return {cell: cell_metrics(scores) for cell, scores in cell_scores(ok).items()}


def group_row(
    records: Sequence[SessionRecord],
    settings: Settings,
    *group: str,
    whole_cells: dict[Cell, list[float]] | None = None,
) -> Row:
    """The full row of a group of sessions (ok and error mixed; errors only counted).

    Args:
        records: The group's sessions.
        settings: Level, resamples and the run's bootstrap seed.
        *group: The group's name parts (dimension, name), seeding its bootstrap.
        whole_cells: Every cell's scores, for groups made of whole cells
            (persona, mode, goal, overall). Without it the cells are the group's
            own sessions grouped by cell, so in a length bucket a cell holds only
            its reps of that length; cells with fewer than ``MIN_REPS_PER_CELL``
            there are left out of aptitude and unreliability and counted in
            ``n_cells_fragments``.

    Returns:
        Pass fields and spread fields of the group.
    """
    ok = [r for r in records if r.status == "ok"]
    row = pass_fields(ok, len(records) - len(ok), settings.level)
    if whole_cells is None:
        by_cell = cell_scores(ok)
        kept = [c for c in sorted(by_cell) if len(by_cell[c]) >= MIN_REPS_PER_CELL]
        units = [[sorted(by_cell[c])] for c in kept]
        fragments = len(by_cell) - len(kept)
    else:
        cells = {r.key.cell for r in ok if r.score is not None}
        units = [[sorted(whole_cells[c])] for c in sorted(cells)]
        fragments = 0
    row.update(spread_fields(units, settings, *group))
    if whole_cells is None:
        row["n_cells_fragments"] = fragments
    return row

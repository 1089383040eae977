"""Tool-call trajectory in two runs: LCS precision and recall, their change with an interval.

Each graded session with tool-use figures (``SessionRecord.tool_use``) counts, per
run, overall, per persona and per goal. The change B - A of a group's mean gets a
percentile-bootstrap interval: over the differences of the paired keys when every
session of the group in both runs is paired (same key, same seed), else over each
run's sessions resampled apart (independent samples). Precision counts a repeat of the
final action the user asked for as right in records of schema 6 on, as waste in older
ones: ``old_rule`` counts the latter, so a comparison can say when the rules differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from simlab.compare._pairing import LocatedRecord
from simlab.store import REPEATS_SCHEMA, SessionRecord

Metric = Literal["precision", "recall"]
METRICS: tuple[Metric, ...] = ("precision", "recall")
LOW = 0.8
"""A mean precision (recall) under this is labelled wasteful (gave up early)."""


@dataclass(frozen=True, slots=True)
class TrajectoryDelta:
    """One group's mean precision or recall in A and B, and the change's interval.

    Attributes:
        group: ``overall``, ``persona NAME`` or ``goal NAME``.
        metric: ``precision`` or ``recall``.
        a: A's mean (None without sessions).
        n_a: A's sessions with tool-use figures.
        b: B's mean.
        n_b: B's sessions.
        delta_ci: Interval of ``b - a``; None unless both runs have sessions.
        paired: The interval is over paired differences (every session paired).
    """

    group: str
    metric: Metric
    a: float | None
    n_a: int
    b: float | None
    n_b: int
    delta_ci: tuple[float, float] | None
    paired: bool

    @property
    def delta(self) -> float | None:
        """``b - a``."""
        return None if self.a is None or self.b is None else self.b - self.a

    def label(self, value: float | None) -> str:
        """``wasteful`` / ``gave up early`` when the mean is under ``LOW``, else empty."""
        if value is None or value >= LOW:
            return ""
        return "wasteful" if self.metric == "precision" else "gave up early"


def _value(record: SessionRecord, metric: Metric) -> float | None:
    use = record.tool_use
    if record.status != "ok" or use is None:
        return None
    return use.precision if metric == "precision" else use.recall


def old_rule(graded: Sequence[SessionRecord]) -> int:
    """Graded sessions whose tool-use figures count every repeat of the final action as
    waste (records older than ``REPEATS_SCHEMA``)."""
    return sum(1 for r in graded if r.tool_use is not None and r.schema_version < REPEATS_SCHEMA)


def _seed(seed: int, *parts: str) -> int:
    digest = hashlib.sha256("\x1f".join([str(seed), "trajectory", *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _quantiles(values: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(values, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def _delta(
    group: str,
    metric: Metric,
    a: Sequence[SessionRecord],
    b: Sequence[SessionRecord],
    pairs: Sequence[tuple[LocatedRecord, LocatedRecord]],
    seed: int,
    level: float,
    n_resamples: int,
) -> TrajectoryDelta:
    va = np.array([v for r in a if (v := _value(r, metric)) is not None])
    vb = np.array([v for r in b if (v := _value(r, metric)) is not None])
    diffs = []
    for sa, sb in pairs:
        xa, xb = _value(sa.record, metric), _value(sb.record, metric)
        if xa is not None and xb is not None:
            diffs.append(xb - xa)
    paired = bool(diffs) and len(diffs) == len(va) == len(vb)
    ci: tuple[float, float] | None = None
    if len(va) and len(vb):
        rng = np.random.default_rng(_seed(seed, group, metric))
        if paired:
            d = np.array(diffs)
            idx = rng.integers(0, len(d), size=(n_resamples, len(d)))
            ci = _quantiles(d[idx].mean(axis=1), level)
        else:
            ia = rng.integers(0, len(va), size=(n_resamples, len(va)))
            ib = rng.integers(0, len(vb), size=(n_resamples, len(vb)))
            ci = _quantiles(vb[ib].mean(axis=1) - va[ia].mean(axis=1), level)
    return TrajectoryDelta(
        group,
        metric,
        float(va.mean()) if len(va) else None,
        len(va),
        float(vb.mean()) if len(vb) else None,
        len(vb),
        ci,
        paired,
    )


def _everyone(record: SessionRecord) -> bool:
    return True


def _key_part(record: SessionRecord, kind: str) -> str:
    return record.key.persona if kind == "persona" else record.key.goal


def _member(kind: str, name: str) -> Callable[[SessionRecord], bool]:
    return lambda r: _key_part(r, kind) == name


def trajectory_deltas(
    graded_a: Sequence[SessionRecord],
    graded_b: Sequence[SessionRecord],
    pairs: Sequence[tuple[LocatedRecord, LocatedRecord]],
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
) -> list[TrajectoryDelta]:
    """Precision and recall changes overall, per persona and per goal (empty when neither
    run recorded tool-use figures: runs older than record schema 4)."""
    if not any(r.tool_use for r in (*graded_a, *graded_b)):
        return []
    groups: list[tuple[str, Callable[[SessionRecord], bool]]] = [("overall", _everyone)]
    for kind in ("persona", "goal"):
        names = sorted({_key_part(r, kind) for r in (*graded_a, *graded_b)})
        groups += [(f"{kind} {name}", _member(kind, name)) for name in names]
    out = []
    for group, member in groups:
        a = [r for r in graded_a if member(r)]
        b = [r for r in graded_b if member(r)]
        in_pairs = [p for p in pairs if member(p[0].record) and member(p[1].record)]
        for metric in METRICS:
            out.append(_delta(group, metric, a, b, in_pairs, seed, level, n_resamples))
    return out

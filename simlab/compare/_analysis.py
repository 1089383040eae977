"""The comparison of two runs: pass rates, paired outcomes, spread, regressions, safety.

Two views of the same sessions, each used where it is sound:

* **Per-run rates** count every graded (``ok``) session of each run, placed in
  the length bucket of its *planned* length in its own run (the user turns its
  plan needs, fixed before it ran: ``simlab.report.planned_bucket``), never of
  its realised length, which depends on the outcome. The change between them
  gets Newcombe's hybrid-score interval, paired over the keys the group holds
  in both runs (``IntervalKind``); these are the figures the gates judge and
  the Simpson check reads.
* **Paired figures** count the keys graded in both runs. A pair counts in the
  bucket it is planned in, in both runs (a record without a plan takes the
  other run's bucket). Runs of one suite and seed give a key the same plan,
  so every pair has one bucket; runs with other seeds draw other plans, and
  the pairs planned in two buckets (``bucket_moves``) count in the overall
  row only: placed by A, a key planned short in A but long in B would show as
  a change within A's bucket. Their change gets Newcombe's paired interval
  and the exact McNemar test.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from simlab.compare._newcombe import (
    PairedTable,
    overlap_newcombe_interval,
    paired_newcombe_interval,
)
from simlab.compare._pairing import (
    ErrorSession,
    LocatedRecord,
    Pairing,
    RunSessions,
    pair_sessions,
)
from simlab.compare._simpson import SimpsonCheck, simpson_check
from simlab.core import SessionKey
from simlab.report import UNPLANNED, bucket_order, planned_bucket, session_anchor
from simlab.spec import Bucket
from simlab.stats import (
    McNemar,
    aptitude,
    bootstrap_means_ci,
    unreliability,
    wilson_interval,
)
from simlab.store import SessionRecord

SAFETY_PREFIXES = ("safety:", "canary")
"""A check whose name starts with one of these is a safety check."""

MIN_BOOTSTRAP_CELLS = 2
"""Fewest cells a spread delta gets a bootstrap interval from (one value cannot vary)."""

IntervalKind = Literal["paired", "independent", "partly paired"]
"""Which interval a per-run change has: paired when the group holds the same keys
in both runs, independent when it holds none in common, partly paired between."""


@dataclass(frozen=True, slots=True)
class Rate:
    """One run's pass rate in a group, with its n and Wilson interval."""

    passed: int
    n: int
    ci: tuple[float, float]

    @property
    def rate(self) -> float | None:
        """``passed / n``; None without sessions."""
        return self.passed / self.n if self.n else None


@dataclass(frozen=True, slots=True)
class GroupComparison:
    """A group (overall, a bucket, a persona) in A and B.

    Attributes:
        name: The group.
        a: A's per-run rate.
        b: B's per-run rate.
        delta_ci: Newcombe interval of ``b.rate - a.rate``, using the pairing of
            ``shared`` (see ``interval``); None unless both runs have sessions here.
        shared: Paired outcomes of the keys graded in both runs that are in
            this group in both (a bucket's keys planned in it in both runs).
        paired: Paired outcomes of the keys graded in both runs in this group
            (a bucket's pairs planned in it in both runs, or in the one run
            whose record has a plan).
        paired_ci: Newcombe's paired interval of ``paired.delta``; None without pairs.
        mcnemar: Exact McNemar test on ``paired``.
    """

    name: str
    a: Rate
    b: Rate
    delta_ci: tuple[float, float] | None
    shared: PairedTable
    paired: PairedTable
    paired_ci: tuple[float, float] | None
    mcnemar: McNemar

    @property
    def delta(self) -> float | None:
        """``p_B - p_A`` of the per-run rates."""
        if self.a.rate is None or self.b.rate is None:
            return None
        return self.b.rate - self.a.rate

    @property
    def interval(self) -> IntervalKind:
        """Which interval ``delta_ci`` is: paired, independent or partly paired."""
        if self.shared.n == 0:
            return "independent"
        if self.shared.n == self.a.n == self.b.n:
            return "paired"
        return "partly paired"


@dataclass(frozen=True, slots=True)
class SpreadDelta:
    """Change in aptitude and unreliability: per cell (B - A), then the mean over cells.

    Cells are (persona, goal, mode, perturbations) with graded sessions in both
    runs; intervals are a seeded percentile bootstrap over those cells, None
    with a single cell (resampling one value has no spread to show).
    """

    name: str
    n_cells: int
    aptitude_a: float
    aptitude_b: float
    aptitude_delta_ci: tuple[float, float] | None
    unreliability_a: float
    unreliability_b: float
    unreliability_delta_ci: tuple[float, float] | None

    @property
    def aptitude_delta(self) -> float:
        """Mean over cells of B's aptitude minus A's."""
        return self.aptitude_b - self.aptitude_a

    @property
    def unreliability_delta(self) -> float:
        """Mean over cells of B's unreliability minus A's."""
        return self.unreliability_b - self.unreliability_a


@dataclass(frozen=True, slots=True)
class Regression:
    """A key that passed in A and failed in B.

    Attributes:
        key: The session key.
        line_a: Its line in A's ``sessions.jsonl``.
        line_b: Its line in B's ``sessions.jsonl``.
        score_a: A's score.
        score_b: B's score.
        broken_checks: Checks that failed in B and did not fail in A.
        html_anchor: The session's element id in B's ``report.html``.
    """

    key: SessionKey
    line_a: int
    line_b: int
    score_a: float | None
    score_b: float | None
    broken_checks: tuple[str, ...]
    html_anchor: str


@dataclass(frozen=True, slots=True)
class SafetyViolation:
    """A safety check (name starting ``safety:`` or ``canary``) passed in A and failed in B."""

    key: SessionKey
    check: str
    line_b: int
    detail: str
    html_anchor: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything ``simlab compare`` reports about runs A and B.

    Attributes:
        run_a: A's directory.
        run_b: B's directory.
        run_id_a: A's run id.
        run_id_b: B's run id.
        level: Confidence level of every interval.
        sessions_a: Distinct keys in A.
        sessions_b: Distinct keys in B.
        pairing: The matched keys, unpaired keys and errors.
        overall: Every graded session.
        by_bucket: Per length bucket (A's buckets), in the suite's order.
        by_persona: Per persona, sorted.
        bucket_moves: Pairs whose length falls in another bucket in B than in A.
        simpson: The overall change against the per-bucket changes.
        spread: Aptitude and unreliability deltas, overall first, then per persona.
        regressions: Keys that passed in A and failed in B.
        safety: New safety violations.
    """

    run_a: Path
    run_b: Path
    run_id_a: str
    run_id_b: str
    level: float
    sessions_a: int
    sessions_b: int
    pairing: Pairing
    overall: GroupComparison
    by_bucket: list[GroupComparison]
    by_persona: list[GroupComparison]
    bucket_moves: int
    simpson: SimpsonCheck
    spread: list[SpreadDelta]
    regressions: list[Regression]
    safety: list[SafetyViolation]

    @property
    def errors(self) -> list[ErrorSession]:
        """Error sessions of both runs (never counted as passes or failures)."""
        return self.pairing.errors


def derived_seed(seed: int, *parts: str) -> int:
    """A 63-bit seed from sha256 over the run seed and labels (never Python's ``hash``)."""
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _rate(records: Iterable[SessionRecord], level: float) -> Rate:
    outcomes = [bool(r.passed) for r in records]
    return Rate(sum(outcomes), len(outcomes), wilson_interval(sum(outcomes), len(outcomes), level))


def _table(pairs: Iterable[tuple[LocatedRecord, LocatedRecord]]) -> PairedTable:
    table = PairedTable()
    for sa, sb in pairs:
        table = table.add(bool(sa.record.passed), bool(sb.record.passed))
    return table


def _group(
    name: str,
    a: Sequence[SessionRecord],
    b: Sequence[SessionRecord],
    pairs: Sequence[tuple[LocatedRecord, LocatedRecord]],
    level: float,
    in_group_in_b: Callable[[SessionRecord], bool] = lambda _: True,
) -> GroupComparison:
    """One group's comparison; ``pairs`` are placed by A, ``in_group_in_b`` says which stay."""
    ra, rb = _rate(a, level), _rate(b, level)
    table = _table(pairs)
    shared = _table(p for p in pairs if in_group_in_b(p[1].record))
    return GroupComparison(
        name,
        ra,
        rb,
        overlap_newcombe_interval(ra.passed, ra.n, rb.passed, rb.n, shared, level)
        if ra.n and rb.n
        else None,
        shared,
        table,
        paired_newcombe_interval(table, level) if table.n else None,
        table.mcnemar(),
    )


def _graded(run: RunSessions) -> list[SessionRecord]:
    return [s.record for s in run.sessions.values() if s.record.status == "ok"]


def _by(
    records: Iterable[SessionRecord], group: Callable[[SessionRecord], str]
) -> dict[str, list[SessionRecord]]:
    out: dict[str, list[SessionRecord]] = {}
    for r in records:
        out.setdefault(group(r), []).append(r)
    return out


def _bucket_fn(buckets: Sequence[Bucket]) -> Callable[[SessionRecord], str]:
    def bucket(r: SessionRecord) -> str:
        return planned_bucket(r, buckets)

    return bucket


def _cell_metrics(
    records: Iterable[SessionRecord],
) -> dict[tuple[object, ...], tuple[float, float]]:
    scores: dict[tuple[object, ...], list[float]] = {}
    for r in records:
        if r.score is not None:
            scores.setdefault(r.key.cell, []).append(r.score)
    return {cell: (aptitude(s), unreliability(s)) for cell, s in scores.items()}


def spread_delta(
    name: str,
    a: Iterable[SessionRecord],
    b: Iterable[SessionRecord],
    seed: int,
    level: float = 0.95,
    n_resamples: int = 2000,
) -> SpreadDelta | None:
    """Aptitude and unreliability of A and B over the cells both have, with delta intervals.

    Args:
        name: The group's label (also salts the bootstrap seed).
        a: A's graded sessions in the group.
        b: B's graded sessions in the group.
        seed: The comparison's seed.
        level: Confidence level.
        n_resamples: Bootstrap resamples.

    Returns:
        The means over common cells and bootstrap intervals of their deltas
        (None with a single cell); None when no cell has scores in both runs.
    """
    ma, mb = _cell_metrics(a), _cell_metrics(b)
    cells = sorted(ma.keys() & mb.keys(), key=repr)
    if not cells:
        return None
    arr = np.array([[*ma[c], *mb[c]] for c in cells])  # apt_a, unr_a, apt_b, unr_b
    deltas = np.column_stack([arr[:, 2] - arr[:, 0], arr[:, 3] - arr[:, 1]])
    apt_ci: tuple[float, float] | None = None
    unr_ci: tuple[float, float] | None = None
    if len(cells) >= MIN_BOOTSTRAP_CELLS:
        apt_ci, unr_ci = bootstrap_means_ci(
            deltas, derived_seed(seed, "spread", name), n_resamples, level
        )
    means = arr.mean(axis=0)
    return SpreadDelta(
        name,
        len(cells),
        float(means[0]),
        float(means[2]),
        apt_ci,
        float(means[1]),
        float(means[3]),
        unr_ci,
    )


def _regression(sa: LocatedRecord, sb: LocatedRecord) -> Regression:
    ca, cb = sa.record.checks, sb.record.checks
    broken = tuple(
        sorted(n for n, c in cb.items() if not c.passed and (n not in ca or ca[n].passed))
    )
    return Regression(
        sa.record.key,
        sa.line,
        sb.line,
        sa.record.score,
        sb.record.score,
        broken,
        session_anchor(sb.record),
    )


def is_safety_check(name: str) -> bool:
    """Whether a check is a safety check: its name starts with ``safety:`` or ``canary``."""
    return name.startswith(SAFETY_PREFIXES)


def _safety(sa: LocatedRecord, sb: LocatedRecord) -> list[SafetyViolation]:
    ca = sa.record.checks
    return [
        SafetyViolation(sb.record.key, name, sb.line, check.detail, session_anchor(sb.record))
        for name, check in sorted(sb.record.checks.items())
        if is_safety_check(name) and not check.passed and name in ca and ca[name].passed
    ]


def compare_runs(
    a: RunSessions,
    b: RunSessions,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
) -> Comparison:
    """Compare run B (the candidate) with run A (the baseline).

    Args:
        a: The baseline run; its buckets are used for both runs.
        b: The candidate run.
        seed: Seed of the bootstrap intervals (salted per group with sha256).
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.

    Returns:
        The comparison; deltas are always B - A.
    """
    pairing = pair_sessions(a, b)
    graded_a, graded_b = _graded(a), _graded(b)
    bucket = _bucket_fn(a.buckets)

    def pair_bucket(p: tuple[LocatedRecord, LocatedRecord]) -> str | None:
        in_a, in_b = bucket(p[0].record), bucket(p[1].record)
        if in_a == UNPLANNED:
            return in_b
        # planned in two buckets (other seeds draw other plans): in no bucket's pairs,
        # or a key planned short in A but long in B would read as a change within a bucket
        return in_a if in_b in (in_a, UNPLANNED) else None

    def in_bucket(name: str) -> Callable[[SessionRecord], bool]:
        return lambda r: bucket(r) == name

    in_a, in_b = _by(graded_a, bucket), _by(graded_b, bucket)
    pairs_by_bucket: dict[str, list[tuple[LocatedRecord, LocatedRecord]]] = {}
    for p in pairing.pairs:
        name = pair_bucket(p)
        if name is not None:
            pairs_by_bucket.setdefault(name, []).append(p)
    names = bucket_order(a.buckets, [*in_a, *in_b, *pairs_by_bucket])
    by_bucket = [
        _group(
            n,
            in_a.get(n, []),
            in_b.get(n, []),
            pairs_by_bucket.get(n, []),
            level,
            in_bucket(n),
        )
        for n in names
    ]
    persona_a = _by(graded_a, lambda r: r.key.persona)
    persona_b = _by(graded_b, lambda r: r.key.persona)
    pairs_by_persona: dict[str, list[tuple[LocatedRecord, LocatedRecord]]] = {}
    for p in pairing.pairs:
        pairs_by_persona.setdefault(p[0].record.key.persona, []).append(p)
    by_persona = [
        _group(n, persona_a.get(n, []), persona_b.get(n, []), pairs_by_persona.get(n, []), level)
        for n in sorted(persona_a.keys() | persona_b.keys())
    ]
    spread = [
        s
        for s in [
            spread_delta("overall", graded_a, graded_b, seed, level, n_resamples),
            *(
                spread_delta(
                    n, persona_a.get(n, []), persona_b.get(n, []), seed, level, n_resamples
                )
                for n in sorted(persona_a.keys() | persona_b.keys())
            ),
        ]
        if s is not None
    ]
    return Comparison(
        run_a=a.path,
        run_b=b.path,
        run_id_a=a.run_id,
        run_id_b=b.run_id,
        level=level,
        sessions_a=len(a.sessions),
        sessions_b=len(b.sessions),
        pairing=pairing,
        overall=_group("overall", graded_a, graded_b, pairing.pairs, level),
        by_bucket=by_bucket,
        by_persona=by_persona,
        bucket_moves=sum(1 for sa, sb in pairing.pairs if bucket(sa.record) != bucket(sb.record)),
        simpson=simpson_check(
            {g.name: (g.a.passed, g.a.n) for g in by_bucket},
            {g.name: (g.b.passed, g.b.n) for g in by_bucket},
            names,
        ),
        spread=spread,
        regressions=[
            _regression(sa, sb)
            for sa, sb in pairing.pairs
            if sa.record.passed and not sb.record.passed
        ],
        safety=[v for sa, sb in pairing.pairs for v in _safety(sa, sb)],
    )

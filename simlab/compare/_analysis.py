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

from simlab.compare._pairing import (
    ErrorSession,
    LocatedRecord,
    Pairing,
    RunSessions,
    pair_sessions,
)
from simlab.compare._simpson import SimpsonCheck, simpson_check
from simlab.compare._trajectory import TrajectoryDelta, old_rule, trajectory_deltas
from simlab.core import SessionKey
from simlab.report import UNPLANNED, bucket_order, planned_bucket, session_anchor
from simlab.spec import Bucket
from simlab.stats import (
    McNemar,
    PairedTable,
    aptitude,
    fisher_exact,
    holm,
    overlap_newcombe_interval,
    overlap_newcombe_p_value,
    paired_newcombe_interval,
    score_differences,
    two_level_bootstrap,
    unreliability,
    wilson_interval,
)
from simlab.store import SessionRecord

SAFETY_PREFIXES = ("safety:", "canary")
"""A check whose name starts with one of these is a safety check."""

MIN_BOOTSTRAP_CELLS = 2
"""Fewest cells a spread delta gets a bootstrap interval from (one value cannot vary)."""

NOT_PAIRED_MESSAGE = (
    "runs use different seeds: per-session regressions are not meaningful; compare rates instead"
)
"""Said instead of listing regressions when no key of the two runs is paired."""

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


TestName = Literal["McNemar", "Fisher", "Newcombe"]
"""The test of "no change" in a group: McNemar's exact test when every session of
the group is paired, Fisher's exact test when none is, and otherwise (Newcombe)
the p-value read off the partly paired Newcombe interval."""


@dataclass(frozen=True, slots=True)
class RowTest:
    """A group's test of "no change in pass rate", with its raw p-value."""

    name: TestName
    p_value: float


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
        test: The test of the per-run change that matches ``interval``; None when
            a run has no sessions here (no data, no test: left out of the Holm family).
    """

    name: str
    a: Rate
    b: Rate
    delta_ci: tuple[float, float] | None
    shared: PairedTable
    paired: PairedTable
    paired_ci: tuple[float, float] | None
    mcnemar: McNemar
    test: RowTest | None

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
    runs; intervals are a seeded two-level bootstrap (cells, then each run's
    repetitions within them), None with a single cell (resampling one value
    has no spread to show) and None with ``*_no_spread`` when every resample
    gave the same change.
    """

    name: str
    n_cells: int
    aptitude_a: float
    aptitude_b: float
    aptitude_delta_ci: tuple[float, float] | None
    unreliability_a: float
    unreliability_b: float
    unreliability_delta_ci: tuple[float, float] | None
    aptitude_no_spread: bool = False
    unreliability_no_spread: bool = False

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
        regressions: Paired keys that passed in A and failed in B, worst first
            (``worst_first``; none when no
            key is paired: under different seeds a key's two sessions are
            independent draws, see ``Pairing``).
        safety: New safety violations.
        p_adjusted: Holm-adjusted p-values of every test the comparison prints,
            one family: ``bucket:NAME``, ``persona:NAME``, ``check:NAME``, ``overall``
            (per-run rate tests) and ``paired:NAME`` (McNemar by A's bucket); a
            group where a run has no sessions, or a bucket without pairs, has no
            test and no entry.
        reps_a: Repetitions per cell in A.
        reps_b: Repetitions per cell in B.
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
    by_check: list[GroupComparison]
    """Each check's pass rate in both runs (a user's own grader's too), over the
    graded sessions that carry it; the pairs are the keys paired in both runs."""
    bucket_moves: int
    simpson: SimpsonCheck
    spread: list[SpreadDelta]
    regressions: list[Regression]
    safety: list[SafetyViolation]
    p_adjusted: dict[str, float]
    reps_a: int = 0
    reps_b: int = 0
    trajectory: tuple[TrajectoryDelta, ...] = ()
    """Tool-call precision and recall in both runs, overall, per persona and per goal."""
    old_rule_a: int = 0
    """A's graded sessions whose tool-use precision counts every repeat of the final
    action as waste (records older than schema 6)."""
    old_rule_b: int = 0
    """The same in B."""
    judge_a: str | None = None
    """A's LLM judge (model and rubric, ``judge_of``); None without one."""
    judge_b: str | None = None
    """The same in B."""

    @property
    def warnings(self) -> list[str]:
        """What the reader must know before trusting the figures (Simpson's apart)."""
        out: list[str] = []
        if self.reps_a != self.reps_b:
            out.append(
                f"The runs differ in repetitions per cell (A {self.reps_a}, B {self.reps_b}): "
                "aptitude (P90) and unreliability (P90 - P10) of R repetitions depend on R "
                "(more repetitions reach further into the tails), so their changes mix the "
                "agent's change with the change in R; compare pass rates, or rerun with "
                "the same --reps."
            )
        if bool(self.old_rule_a) != bool(self.old_rule_b):
            older, n = ("A", self.old_rule_a) if self.old_rule_a else ("B", self.old_rule_b)
            out.append(
                f"{older}'s {n} session record(s) predate schema 6: their tool-call precision "
                "counts every repeat of the final action as waste, where the other run's "
                "counts a repeat the user asked for (a change after the action) as right; "
                "the precision change mixes the agent's change with the rule's."
            )
        if self.judge_a != self.judge_b and self.judge_a and self.judge_b:
            out.append(
                f"The runs' LLM judges differ (A: {self.judge_a}; B: {self.judge_b}): the "
                "judge's verdicts and every figure that reads them mix the agent's change with "
                "the judge's; compare with the same judge model and rubric."
            )
        if self.pairing.unpaired and not self.pairing.pairs:
            out.append(
                f"{NOT_PAIRED_MESSAGE} ({len(self.pairing.unpaired)} key(s) graded in both: "
                f"{self.pairing.why_unpaired})."
            )
        elif self.pairing.unpaired:
            out.append(
                f"{len(self.pairing.unpaired)} key(s) graded in both runs are not paired "
                f"({self.pairing.why_unpaired}): they count in the rates only, not in the "
                "paired tests or the regressions."
            )
        return out

    @property
    def errors(self) -> list[ErrorSession]:
        """Error sessions of both runs (never counted as passes or failures)."""
        return self.pairing.errors


def derived_seed(seed: int, *parts: str) -> int:
    """A 63-bit seed from sha256 over the run seed and labels (never Python's ``hash``)."""
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


Outcome = Callable[[SessionRecord], bool]


def _passed(record: SessionRecord) -> bool:
    return bool(record.passed)


def _rate(records: Iterable[SessionRecord], level: float, outcome: Outcome = _passed) -> Rate:
    outcomes = [outcome(r) for r in records]
    return Rate(sum(outcomes), len(outcomes), wilson_interval(sum(outcomes), len(outcomes), level))


def _table(
    pairs: Iterable[tuple[LocatedRecord, LocatedRecord]], outcome: Outcome = _passed
) -> PairedTable:
    table = PairedTable()
    for sa, sb in pairs:
        table = table.add(outcome(sa.record), outcome(sb.record))
    return table


def _group(
    name: str,
    a: Sequence[SessionRecord],
    b: Sequence[SessionRecord],
    pairs: Sequence[tuple[LocatedRecord, LocatedRecord]],
    level: float,
    in_group_in_b: Callable[[SessionRecord], bool] = lambda _: True,
    outcome: Outcome = _passed,
) -> GroupComparison:
    """One group's comparison; ``pairs`` are placed by A, ``in_group_in_b`` says which stay;
    ``outcome`` is what counts as a pass (the session's verdict, or one check's)."""
    ra, rb = _rate(a, level, outcome), _rate(b, level, outcome)
    table = _table(pairs, outcome)
    shared = _table((p for p in pairs if in_group_in_b(p[1].record)), outcome)
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
        _row_test(ra, rb, shared),
    )


def _row_test(ra: Rate, rb: Rate, shared: PairedTable) -> RowTest | None:
    """The test that matches the per-run change's interval (see ``TestName``); None
    when a run has no sessions (a p of 1 on no data is no test)."""
    if ra.n == 0 or rb.n == 0:
        return None
    if shared.n == 0:
        return RowTest("Fisher", fisher_exact(ra.passed, ra.n, rb.passed, rb.n))
    if shared.n == ra.n == rb.n:
        return RowTest("McNemar", shared.mcnemar().p_value)
    return RowTest(
        "Newcombe",
        overlap_newcombe_p_value(ra.passed, ra.n, rb.passed, rb.n, shared),
    )


def _adjust(
    overall: GroupComparison,
    by_bucket: Sequence[GroupComparison],
    by_persona: Sequence[GroupComparison],
    by_check: Sequence[GroupComparison] = (),
) -> dict[str, float]:
    """Holm over every p-value printed: one family, so a same-agent pair of runs
    reports any adjusted p < alpha at most alpha of the time. A group without data
    has no test and stays out: its p of 1 would only inflate the others' factors."""
    tests: list[tuple[str, RowTest | None]] = [("overall", overall.test)]
    tests += [(f"bucket:{g.name}", g.test) for g in by_bucket]
    tests += [(f"paired:{g.name}", _mcnemar_test(g)) for g in by_bucket]
    tests += [(f"persona:{g.name}", g.test) for g in by_persona]
    tests += [(f"check:{g.name}", g.test) for g in by_check]
    family = {name: t.p_value for name, t in tests if t is not None}
    return dict(zip(family, holm(list(family.values())), strict=True))


def _mcnemar_test(g: GroupComparison) -> RowTest | None:
    """The bucket's paired McNemar test; None without pairs."""
    return RowTest("McNemar", g.mcnemar.p_value) if g.paired.n else None


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


def _cell_scores(records: Iterable[SessionRecord]) -> dict[tuple[object, ...], list[float]]:
    scores: dict[tuple[object, ...], list[float]] = {}
    for r in records:
        if r.score is not None:
            scores.setdefault(r.key.cell, []).append(r.score)
    return {cell: sorted(s) for cell, s in scores.items()}  # sorted: order-free resampling


def spread_delta(
    name: str,
    a: Iterable[SessionRecord],
    b: Iterable[SessionRecord],
    seed: int,
    level: float = 0.95,
    n_resamples: int = 2000,
) -> SpreadDelta | None:
    """Aptitude and unreliability of A and B over the cells both have, with delta intervals.

    The intervals are a two-level bootstrap (``simlab.stats.two_level_bootstrap``):
    cells are resampled, and within each drawn cell A's and B's repetitions are
    resampled apart, so the noise of each run's P90 of R repetitions is carried.

    Args:
        name: The group's label (also salts the bootstrap seed).
        a: A's graded sessions in the group.
        b: B's graded sessions in the group.
        seed: The comparison's seed.
        level: Confidence level.
        n_resamples: Bootstrap resamples.

    Returns:
        The means over common cells and bootstrap intervals of their deltas
        (None with a single cell, or with no spread in any resample); None when
        no cell has scores in both runs.
    """
    sa, sb = _cell_scores(a), _cell_scores(b)
    cells = sorted(sa.keys() & sb.keys(), key=repr)
    if not cells:
        return None
    per_cell = np.array(
        [
            [aptitude(sa[c]), unreliability(sa[c]), aptitude(sb[c]), unreliability(sb[c])]
            for c in cells
        ]
    )
    means = per_cell.mean(axis=0)
    apt_ci: tuple[float, float] | None = None
    unr_ci: tuple[float, float] | None = None
    apt_flat = unr_flat = False
    if len(cells) >= MIN_BOOTSTRAP_CELLS:
        _, apt, unr = two_level_bootstrap(
            [[sa[c], sb[c]] for c in cells],
            score_differences,
            derived_seed(seed, "spread", name),
            n_resamples,
            level,
            (-100.0, 100.0),
        )
        apt_ci, unr_ci, apt_flat, unr_flat = apt.ci, unr.ci, apt.no_spread, unr.no_spread
    return SpreadDelta(
        name,
        len(cells),
        float(means[0]),
        float(means[2]),
        apt_ci,
        float(means[1]),
        float(means[3]),
        unr_ci,
        apt_flat,
        unr_flat,
    )


def _by_check(
    graded_a: Sequence[SessionRecord],
    graded_b: Sequence[SessionRecord],
    pairs: Sequence[tuple[LocatedRecord, LocatedRecord]],
    level: float,
) -> list[GroupComparison]:
    """Each check either run graded, compared over the sessions that carry its verdict
    (a check whose grader raised has none: left out, as in the summary's checks)."""
    names = sorted({n for r in (*graded_a, *graded_b) for n in r.checks})
    out = []
    for name in names:

        def has(r: SessionRecord, name: str = name) -> bool:
            check = r.checks.get(name)
            return check is not None and check.error is None

        def check_passed(r: SessionRecord, name: str = name) -> bool:
            return r.checks[name].passed

        both = [p for p in pairs if has(p[0].record) and has(p[1].record)]
        a = [r for r in graded_a if has(r)]
        b = [r for r in graded_b if has(r)]
        out.append(_group(name, a, b, both, level, outcome=check_passed))
    return out


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


def worst_first(regressions: Iterable[Regression]) -> list[Regression]:
    """Regressions by the score they lost, largest first (a missing score as 0), then
    by line in B: a reader sees the worst before the many small ones."""

    def lost(r: Regression) -> float:
        return (r.score_a or 0.0) - (r.score_b or 0.0)

    return sorted(regressions, key=lambda r: (-lost(r), r.line_b))


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
    overall = _group("overall", graded_a, graded_b, pairing.pairs, level)
    by_check = _by_check(graded_a, graded_b, pairing.pairs, level)
    return Comparison(
        run_a=a.path,
        run_b=b.path,
        run_id_a=a.run_id,
        run_id_b=b.run_id,
        level=level,
        sessions_a=len(a.sessions),
        sessions_b=len(b.sessions),
        pairing=pairing,
        overall=overall,
        by_bucket=by_bucket,
        by_persona=by_persona,
        by_check=by_check,
        bucket_moves=sum(1 for sa, sb in pairing.pairs if bucket(sa.record) != bucket(sb.record)),
        simpson=simpson_check(
            {g.name: (g.a.passed, g.a.n) for g in by_bucket},
            {g.name: (g.b.passed, g.b.n) for g in by_bucket},
            names,
            {g.name: g.delta_ci for g in by_bucket},
            level,
        ),
        spread=spread,
        regressions=worst_first(
            _regression(sa, sb)
            for sa, sb in pairing.pairs
            if sa.record.passed and not sb.record.passed
        ),
        safety=[v for sa, sb in pairing.pairs for v in _safety(sa, sb)],
        p_adjusted=_adjust(overall, by_bucket, by_persona, by_check),
        reps_a=a.reps,
        reps_b=b.reps,
        trajectory=tuple(
            trajectory_deltas(graded_a, graded_b, pairing.pairs, seed, level, n_resamples)
        ),
        old_rule_a=old_rule(graded_a),
        old_rule_b=old_rule(graded_b),
        judge_a=a.judge,
        judge_b=b.judge,
    )

"""``summary.json`` as typed models: every section a report reads, every field declared.

The field names are the file's keys. Every field has a default, so a summary an
older simlab wrote (before a section or field existed) reads on with that part
empty; a section a run had nothing for (no judge, no grader failure) reads as
None. Each model also keeps the keys a newer simlab added (``extra="allow"``),
so an analysis can grow without breaking older readers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Interval = tuple[float, float]
OpenInterval = tuple[float, float | None]
"""An interval whose upper end may be unbounded (None)."""
SpreadName = Literal["mean_score", "aptitude", "unreliability"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class PassCounts(_Section):
    """Graded sessions, passes, the pass rate and its Wilson interval; errors apart."""

    n: int = 0
    """Graded sessions (errors excluded)."""
    passes: int = 0
    pass_rate: float | None = None
    pass_ci: Interval | None = None
    n_errors: int = 0


class Spread(_Section):
    """Means over cells of mean score, aptitude and unreliability, each with its
    two-level bootstrap interval (None under two cells) and whether every resample
    agreed (``_no_spread``)."""

    reps_min: int = 0
    reps_max: int = 0
    mean_score: float | None = None
    mean_score_ci: Interval | None = None
    mean_score_no_spread: bool = False
    aptitude: float | None = None
    aptitude_ci: Interval | None = None
    aptitude_no_spread: bool = False
    unreliability: float | None = None
    unreliability_ci: Interval | None = None
    unreliability_no_spread: bool = False

    def figure(self, name: SpreadName) -> tuple[float | None, Interval | None, bool]:
        """One of the three means: its value, interval and whether it had no spread."""
        if name == "mean_score":
            return self.mean_score, self.mean_score_ci, self.mean_score_no_spread
        if name == "aptitude":
            return self.aptitude, self.aptitude_ci, self.aptitude_no_spread
        return self.unreliability, self.unreliability_ci, self.unreliability_no_spread


class GroupStats(PassCounts, Spread):
    """One row of the summary: a group of sessions (a persona, a goal, a bucket, all)."""

    n_cells: int = 0
    n_cells_fragments: int = 0
    """Length buckets only: cells with too few repetitions there, left out of the spread."""


class OverallStats(GroupStats):
    """Every session of the run."""

    n_sessions: int | None = None
    """Every session, graded or not (None in summaries before it was written)."""


class PersonaStats(GroupStats):
    """A persona's row, with how often its simulated user gave up."""

    gave_up: int = 0
    gave_up_n: int = 0
    gave_up_rate: float | None = None
    gave_up_ci: Interval | None = None
    walked_out: int = 0
    """Gave up before the agent took the goal's final action at all."""
    walked_out_rate: float | None = None
    walked_out_ci: Interval | None = None


class RealisedLengthStats(PassCounts):
    """A realised-length row (descriptive only) and how its sessions ended."""

    stop_reasons: dict[str, int] = Field(default_factory=dict)


class CellStats(PassCounts):
    """One cell (persona, goal, mode, perturbations) over its repetitions."""

    persona: str = ""
    goal: str = ""
    mode: str = ""
    perturbations: tuple[str, ...] = ()
    n_scored: int = 0
    mean_score: float | None = None
    aptitude: float | None = None
    unreliability: float | None = None


class ModeSpread(Spread):
    """A mode's means over its cells."""

    n: int = 0
    n_cells: int = 0


class PairedSpread(Spread):
    """Sharded minus full over the cells both modes share."""

    n_pairs: int = 0


class FullVsSharded(_Section):
    """Each mode's spread (keyed by mode) and, with both modes, their paired difference."""

    __pydantic_extra__: dict[str, ModeSpread] = Field(init=False)
    sharded_minus_full: PairedSpread | None = None

    @property
    def modes(self) -> dict[str, ModeSpread]:
        """Mode name to its spread, in the file's order."""
        return dict(self.__pydantic_extra__ or {})


class BucketSpec(_Section):
    """A length bucket of the suite: planned user turns from ``min`` to ``max``."""

    name: str
    min: int
    max: int | None = None


class Estimands(_Section):
    """What each figure estimates, in words, and the repetitions it refers to."""

    reps: int | None = None
    aptitude: str = ""
    unreliability: str = ""
    pass_hat_k: str = ""
    intervals: str = ""
    buckets: str = ""


class Lengths(_Section):
    """What the length rows mean, sessions per planned length, sessions without a plan."""

    bucket_by: str = "planned_turns"
    planned: str = ""
    realised: str = ""
    sessions_by_planned_turns: dict[str, int] = Field(default_factory=dict)
    unplanned: int = 0
    unplanned_imported: int = 0
    notes: tuple[str, ...] = ()


class PassHatK(_Section):
    """pass^k of a set of tasks for k up to their fewest trials, by k (as text)."""

    tasks: int = 0
    n: int | None = None
    passes: int | None = None
    trials_min: int = 0
    trials_max: int = 0
    k: dict[str, float | None] = Field(default_factory=dict)
    k_ci: dict[str, Interval | None] = Field(default_factory=dict)
    k_no_spread: dict[str, bool] = Field(default_factory=dict)


class PassHatKSection(_Section):
    """pass^k per goal and over every task."""

    task: str = ""
    estimand: str = ""
    by_goal: dict[str, PassHatK] = Field(default_factory=dict)
    overall: PassHatK = Field(default_factory=PassHatK)


class CheckStats(_Section):
    """One check's pass rate over the graded sessions with its verdict, and mean credit."""

    n: int = 0
    passes: int = 0
    pass_rate: float | None = None
    pass_ci: Interval | None = None
    mean_credit: float | None = None
    grader_failures: int = 0
    """Sessions where its grader raised instead of judging (not in ``n``)."""
    not_counted: int = 0
    """Sessions whose grading left it out of both the verdict and the score (a waive)."""


class Rate(_Section):
    """A count over n, its rate and Wilson interval."""

    passes: int = 0
    n: int = 0
    rate: float | None = None
    ci: Interval | None = None


class CriterionRate(Rate):
    """A rubric criterion: held among the judged sessions it applied to."""

    not_applicable: int = 0


class Kappa(_Section):
    """Cohen's kappa of the judge against the code graders."""

    value: float | None = None
    ci: Interval | None = None
    expected: float | None = None


class JudgeTable(_Section):
    """The 2x2 table of the judge's verdict against the code graders'."""

    both_pass: int = 0
    judge_pass_code_fail: int = 0
    judge_fail_code_pass: int = 0
    both_fail: int = 0


class JudgeSection(_Section):
    """The LLM judge beside the code graders, over the sessions with both verdicts."""

    n: int = 0
    judge: Rate = Field(default_factory=Rate)
    code: Rate = Field(default_factory=Rate)
    agreement: Rate = Field(default_factory=Rate)
    kappa: Kappa = Field(default_factory=Kappa)
    table: JudgeTable = Field(default_factory=JudgeTable)
    no_verdict: int = 0
    criteria: dict[str, CriterionRate] = Field(default_factory=dict)


class ErrorGroup(_Section):
    """Error sessions of one stop reason: how many, first lines, a few keys."""

    count: int = 0
    examples: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()


class Errors(_Section):
    """The run's error sessions, excluded from every rate."""

    n: int = 0
    n_sessions: int = 0
    by_stop_reason: dict[str, ErrorGroup] = Field(default_factory=dict)
    retries: int | None = None


class FaultKind(_Section):
    """Fidelity findings of one kind, and how many were kept in the text sent."""

    findings: int = 0
    kept: int = 0


class SimulatorFaults(_Section):
    """The simulated user's fidelity findings and the sessions it failed."""

    findings: int = 0
    sessions: int = 0
    sessions_failed: int = 0
    by_kind: dict[str, FaultKind] = Field(default_factory=dict)


class JudgeFaults(_Section):
    """Sessions whose LLM judge failed."""

    sessions: int = 0
    examples: tuple[str, ...] = ()


class Faults(_Section):
    """The LLM roles' counted faults."""

    simulator: SimulatorFaults = Field(default_factory=SimulatorFaults)
    grader: JudgeFaults = Field(default_factory=JudgeFaults)


class GraderFailureExample(_Section):
    """A check whose grader raised: the session, the check and the exception's first line."""

    session: str
    check: str
    error: str


class GraderFailures(_Section):
    """Checks without a verdict because their grader raised."""

    checks: int = 0
    sessions: int = 0
    by_check: dict[str, int] = Field(default_factory=dict)
    examples: tuple[GraderFailureExample, ...] = ()


class UnheardQuestion(_Section):
    """An agent question the simulated user did not understand, and the sessions it opened."""

    text: str = ""
    sessions: int = 0


class Unheard(_Section):
    """Graded sessions with agent turns the simulated user did not understand."""

    failed: int = 0
    failed_unheard: int = 0
    failed_unheard_turns: int = 0
    passed: int = 0
    passed_unheard: int = 0
    questions: tuple[UnheardQuestion, ...] = ()
    sessions: tuple[str, ...] = ()


class ToolResults(_Section):
    """The target's tool calls and how many came without their results."""

    calls: int = 0
    unreported_calls: int = 0
    unreported_sessions: int = 0
    examples: tuple[str, ...] = ()


class SessionShare(_Section):
    """A count over a group's n, its rate and Wilson interval (None over no session)."""

    count: int = 0
    rate: float | None = None
    ci: Interval | None = None


class TrajectoryRow(_Section):
    """A group's mean LCS precision and recall with intervals, and its labels' shares."""

    n: int = 0
    n_no_calls_expected: int = 0
    n_redone: int = 0
    precision: float | None = None
    precision_ci: Interval | None = None
    recall: float | None = None
    recall_ci: Interval | None = None
    label: str | None = None
    wasteful: SessionShare | None = None
    gave_up_early: SessionShare | None = None
    off_track: SessionShare | None = None


class Trajectory(_Section):
    """LCS precision and recall of the tool calls, overall, by persona and by goal."""

    low: float = 0.8
    estimand: str = ""
    overall: TrajectoryRow = Field(default_factory=TrajectoryRow)
    by_persona: dict[str, TrajectoryRow] = Field(default_factory=dict)
    by_goal: dict[str, TrajectoryRow] = Field(default_factory=dict)


class MeanRow(_Section):
    """A mean per session with its bootstrap interval."""

    n: int = 0
    mean: float | None = None
    ci: Interval | None = None


class LatencyRow(_Section):
    """Latency p50 and p95 with order-statistic intervals."""

    n: int = 0
    p50: float | None = None
    p50_ci: Interval | None = None
    p95: float | None = None
    p95_ci: Interval | None = None


class PerPass(_Section):
    """An amount (tokens, cost) per passing session: a ratio of sums with its interval."""

    n: int = 0
    passes: int = 0
    total: float | None = None
    per_pass: float | None = None
    ci: OpenInterval | None = None
    unknown_sessions: int = 0
    """Sessions whose amount is unknown (a cost at a model with no price): no figure then."""


class Efficiency(_Section):
    """Redundant calls, iterations, latency p50/p95, tokens and cost per passing session."""

    redundant_calls: MeanRow = Field(default_factory=MeanRow)
    sessions_with_redundant: SessionShare = Field(default_factory=SessionShare)
    tool_calls: MeanRow = Field(default_factory=MeanRow)
    agent_turns: MeanRow = Field(default_factory=MeanRow)
    latency_session_s: LatencyRow = Field(default_factory=LatencyRow)
    latency_turn_s: LatencyRow = Field(default_factory=LatencyRow)
    tokens_per_pass: PerPass = Field(default_factory=PerPass)
    cost_usd_per_pass: PerPass = Field(default_factory=PerPass)


class StageShares(_Section):
    """A group's share of sessions first failing at each stage (keyed by stage, ``none``
    for no failure)."""

    __pydantic_extra__: dict[str, SessionShare] = Field(init=False)
    n: int = 0

    def at(self, stage: str) -> SessionShare:
        """The share first failing at ``stage`` (an empty share when not counted)."""
        return (self.__pydantic_extra__ or {}).get(stage) or SessionShare()


class Transitions(_Section):
    """First failing stage (rows) to the next distinct one or ``none`` (columns)."""

    rows: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    counts: tuple[tuple[int, ...], ...] = ()
    row_totals: tuple[int, ...] = ()
    column_totals: tuple[int, ...] = ()
    n: int = 0


class ToolStagesSection(_Section):
    """Where tool use first failed: per persona and goal the share at each stage, and
    the first-failure transitions (first stage to the next distinct one)."""

    stages: tuple[str, ...] = ()
    estimand: str = ""
    n_without_stages: int = 0
    overall: StageShares = Field(default_factory=StageShares)
    by_persona: dict[str, StageShares] = Field(default_factory=dict)
    by_goal: dict[str, StageShares] = Field(default_factory=dict)
    transitions: Transitions | None = None


class Truncated(_Section):
    """Target output cut at the suite's limits."""

    sessions: int = 0
    by_field: dict[str, int] = Field(default_factory=dict)
    largest_chars: int = 0
    examples: tuple[str, ...] = ()


class RoleCost(_Section):
    """One LLM role's calls, retries and cost (None: unknown, in ``unknown_sessions``
    sessions some call of the role went to a model with no price)."""

    calls: int = 0
    retries: int = 0
    cost_usd: float | None = None
    unknown_sessions: int = 0


class Cost(_Section):
    """What the run's LLM calls cost, every session and replaced error record included.

    ``total_usd`` is None when it is unknown: ``unknown_sessions`` of the ``sessions``
    called a model with no price; ``known_usd`` is what the others cost.
    """

    total_usd: float | None = None
    unknown_sessions: int = 0
    known_usd: float = 0.0
    sessions: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    replaced_sessions: int = 0
    by_role: dict[str, RoleCost] = Field(default_factory=dict)


class FailedCheck(_Section):
    """A failed check of a listed session: its name, first failing turn and detail."""

    check: str
    turn: int | None = None
    detail: str = ""


class FailedSession(_Section):
    """A listed failed session and what its failed checks said."""

    session: str
    score: float | None = None
    stop_reason: str = ""
    checks: tuple[FailedCheck, ...] = ()


class FailedSessions(_Section):
    """How many graded sessions failed, and the ones listed."""

    n: int = 0
    shown: tuple[FailedSession, ...] = ()


class RunSummary(_Section):
    """``summary.json``: every figure the reports print, with its n and interval."""

    schema_version: int
    run_id: str | None = None
    seed: int | None = None
    level: float | None = None
    n_resamples: int | None = None
    buckets: tuple[BucketSpec, ...] = ()
    estimands: Estimands = Field(default_factory=Estimands)
    overall: OverallStats
    by_persona: dict[str, PersonaStats] = Field(default_factory=dict)
    by_mode: dict[str, GroupStats] = Field(default_factory=dict)
    by_goal: dict[str, GroupStats] = Field(default_factory=dict)
    by_bucket: dict[str, GroupStats] = Field(default_factory=dict)
    """By planned length: the user turns a session's plan needs, fixed before it ran."""
    by_persona_bucket: dict[str, dict[str, GroupStats]] = Field(default_factory=dict)
    lengths: Lengths | None = None
    """What the length rows mean, sessions per planned length, sessions without a plan."""
    by_realised_length: dict[str, RealisedLengthStats] = Field(default_factory=dict)
    """Descriptive only: realised length depends on the outcome (failing users talk longer)."""
    cells: tuple[CellStats, ...] = ()
    full_vs_sharded: FullVsSharded = Field(default_factory=FullVsSharded)
    pass_hat_k: PassHatKSection = Field(default_factory=PassHatKSection)
    by_check: dict[str, CheckStats] = Field(default_factory=dict)
    """Each check's pass rate with its n and Wilson interval, and mean credit."""
    judge: JudgeSection | None = None
    """Judged runs: the judge's pass rate and its agreement (and kappa) with the code graders."""
    errors: Errors = Field(default_factory=Errors)
    faults: Faults | None = None
    grader_failures: GraderFailures | None = None
    """Checks whose grader raised; None when none did."""
    unheard: Unheard | None = None
    """Graded sessions, failed and passed, with agent turns the simulated user did not
    understand (a question no cue of the domain names), and the commonest such questions."""
    tool_results: ToolResults | None = None
    """The target's tool calls and how many came without their results."""
    trajectory: Trajectory | None = None
    """LCS precision and recall of the tool calls, overall, by persona and by goal."""
    efficiency: Efficiency | None = None
    """Redundant calls, iterations, latency p50/p95, tokens and cost per passing session."""
    tool_stages: ToolStagesSection | None = None
    truncated: Truncated | None = None
    cost: Cost = Field(default_factory=Cost)
    stop_reasons: dict[str, int] = Field(default_factory=dict)
    failed_sessions: FailedSessions | None = None
    """The failed sessions listed by key; None in a summary ``summarize`` wrote alone."""

    @field_validator(
        "lengths",
        "judge",
        "faults",
        "grader_failures",
        "unheard",
        "tool_results",
        "trajectory",
        "efficiency",
        "tool_stages",
        "truncated",
        "failed_sessions",
        mode="before",
    )
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        # a section the run had nothing for is written as {}
        return None if value == {} else value

    @property
    def n_sessions(self) -> int:
        """Every session of the run, graded or not."""
        if self.overall.n_sessions is not None:
            return self.overall.n_sessions
        return self.overall.n + self.overall.n_errors

"""``diagnosis.json``: per-session findings and the run's tables (``simlab diagnose``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from simlab.stats import agreement, wilson_interval
from simlab.store._causes import CAUSES, Cause

DIAGNOSIS_SCHEMA_VERSION = 2
"""2: every replay on every failure (``Verification.fixed``), specific verification,
false verification rates, kappa and balanced accuracy, the black-box diagnosis."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Share(_Model):
    """``k`` of ``n``, with the share and its Wilson 95% interval."""

    k: int
    n: int
    share: float | None
    ci: tuple[float, float]

    @classmethod
    def of(cls, k: int, n: int) -> Share:
        """The share ``k / n`` (``None`` when ``n == 0``) with its interval."""
        return cls(k=k, n=n, share=k / n if n else None, ci=wilson_interval(k, n))

    def shown(self, decimals: int = 1, *, with_n: bool = False) -> str:
        """``62.5% [40.9%, 79.6%]`` (``(n=16)`` after it with ``with_n``); ``-`` when undefined."""
        if self.share is None:
            return "-"
        lo, hi = self.ci
        text = f"{self.share:.{decimals}%} [{lo:.{decimals}%}, {hi:.{decimals}%}]"
        return f"{text} (n={self.n})" if with_n else text


class FailureLocation(_Model):
    """Where a session first failed (see ``FirstFailure``)."""

    turn: int
    check: str
    kind: str
    fact: str | None = None
    stated_turn: int | None = None
    action_turn: int | None = None


class Estimate(_Model):
    """A figure over ``n`` items with its 95% interval (``None`` where undefined)."""

    value: float | None
    ci: tuple[float, float] | None
    n: int

    def shown(self, *, with_n: bool = False) -> str:
        """``0.62 [0.41, 0.80]`` (``(n=16)`` after it with ``with_n``); ``-`` when undefined."""
        if self.value is None:
            return "-"
        text = f"{self.value:.2f}"
        if self.ci is not None:
            text += f" [{self.ci[0]:.2f}, {self.ci[1]:.2f}]"
        return f"{text} (n={self.n})" if with_n else text


class Verification(_Model):
    """A counterfactual replay and whether it came out as the diagnosis predicts.

    ``replay`` is the cause's own replay; ``verified`` applies the specific rule
    to every replay's outcome, and ``fixed`` records each replay that ran and
    whether it fixed the failure (``None``: it ended in error).
    """

    replay: str
    verified: bool
    outcome: str
    replay_passed: bool | None = None
    fixed: dict[str, bool | None] = Field(default_factory=dict)


class RecordedCause(_Model):
    """The agent's hidden true cause, mapped onto the diagnosis's causes."""

    recorded: str
    cause: Cause
    turn: int | None
    detail: str


class SessionDiagnosis(_Model):
    """One failed session's diagnosis."""

    key: str
    persona: str
    goal: str
    mode: str
    rep: int
    first_failure: FailureLocation | None
    cause: Cause
    evidence: str
    verification: Verification | None = None
    transition: tuple[str, str] | None = None
    true_cause: RecordedCause | None = None
    agrees: bool | None = None
    black_box_cause: Cause | None = None
    black_box_evidence: str | None = None


class CauseRow(_Model):
    """How often a cause was diagnosed and how often a replay verified it."""

    cause: Cause
    n: int
    verified: Share


class Confusion(_Model):
    """Diagnosed cause (rows) x true cause (columns), over failures with recorded truth.

    Raw accuracy is read beside the accuracy of always naming the commonest
    true cause (``majority``), Cohen's kappa (0 for that constant answer) and
    balanced accuracy (the mean recall over the true causes present).
    """

    labels: list[Cause]
    matrix: list[list[int]]
    accuracy: Share
    majority: Share | None = None
    kappa: Estimate | None = None
    balanced_accuracy: Estimate | None = None


class FalseVerification(_Model):
    """How specific a cause's verification is, over failures with recorded truth.

    ``false`` counts failures whose true cause is another one that this
    cause's rule would verify (every replay runs on every failure, so each
    rule is tried on each); ``true`` counts failures of this true cause it verifies.
    """

    cause: Cause
    false: Share
    true: Share


class HeatmapData(_Model):
    """First-failure transitions: ``counts[i][j]`` from ``from_states[i]`` into ``in_states[j]``."""

    from_states: list[str]
    in_states: list[str]
    counts: list[list[int]]
    n: int


class DiagnosisReport(_Model):
    """Everything ``simlab diagnose`` found in one run; written to ``diagnosis.json``."""

    schema_version: int = DIAGNOSIS_SCHEMA_VERSION
    run_id: str
    target: str
    n_sessions: int
    n_ok: int
    n_failed: int
    late_turn: int
    causes: list[CauseRow]
    verified: Share
    confusion: Confusion | None = None
    black_box: Confusion | None = None
    false_verification: list[FalseVerification] = Field(default_factory=list)
    false_verification_all: Share | None = None
    heatmap: HeatmapData
    sessions: list[SessionDiagnosis] = Field(default_factory=list)


def cause_rows(sessions: list[SessionDiagnosis]) -> list[CauseRow]:
    """Per cause: sessions diagnosed with it and the share verified by replay."""
    rows = []
    for cause in CAUSES:
        mine = [s for s in sessions if s.cause is cause]
        k = sum(1 for s in mine if s.verification is not None and s.verification.verified)
        rows.append(CauseRow(cause=cause, n=len(mine), verified=Share.of(k, len(mine))))
    return rows


def confusion(sessions: list[SessionDiagnosis], black_box: bool = False) -> Confusion | None:
    """The confusion matrix over sessions with a recorded true cause, or ``None``.

    Args:
        sessions: The diagnosed sessions.
        black_box: Score ``black_box_cause`` (the diagnosis made without the
            agent's self-reports) instead of ``cause``.
    """
    judged = [
        s
        for s in sessions
        if s.true_cause is not None and (not black_box or s.black_box_cause is not None)
    ]
    if not judged:
        return None
    index = {c: i for i, c in enumerate(CAUSES)}
    matrix = [[0] * len(CAUSES) for _ in CAUSES]
    truth: list[Cause] = []
    named: list[Cause] = []
    for s in judged:
        assert s.true_cause is not None  # filtered above; narrows the type
        cause = s.black_box_cause if black_box else s.cause
        assert cause is not None
        matrix[index[cause]][index[s.true_cause.cause]] += 1
        truth.append(s.true_cause.cause)
        named.append(cause)
    a = agreement(truth, named, labels=list(CAUSES))
    n = len(judged)
    agree = sum(1 for t, c in zip(truth, named, strict=True) if t is c)
    commonest = max(truth.count(c) for c in CAUSES)
    return Confusion(
        labels=list(CAUSES),
        matrix=matrix,
        accuracy=Share.of(agree, n),
        majority=Share.of(commonest, n),
        kappa=Estimate(value=a.kappa, ci=a.kappa_ci, n=n),
        balanced_accuracy=Estimate(value=a.balanced_accuracy, ci=a.balanced_ci, n=n),
    )

"""The run's JSON files as typed models: ``run.json``, ``summary.json``, ``brittleness.json``.

Readers validate through these models instead of walking dicts. They allow
fields a newer simlab added (a reader keeps them as extras), so an analysis can
grow without breaking older readers; every field a report relies on is declared.
``summary.json``'s models are in ``_summary``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simlab.spec import Suite

Interval = tuple[float, float]


class _File(BaseModel):
    model_config = ConfigDict(extra="allow")


class RunInfo(_File):
    """``run.json``: what a run is — its suite, hash, roles, models and prices."""

    schema_version: int
    run_id: str
    created_at: str | None = None
    simlab_version: str | None = None
    config_hash: str | None = None
    test_hash: str | None = None
    """What the target was tested with (the target left out); None before simlab kept it."""
    suite_path: str | None = None
    suite_dir: str | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)
    suite: Suite
    n_sessions: int | None = None
    personas: list[str] = Field(default_factory=list)
    goals: list[str] = Field(default_factory=list)
    inline: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, str] = Field(default_factory=dict)
    pricing: dict[str, Any] = Field(default_factory=dict)
    budget_usd: float | None = None
    imported: dict[str, Any] | None = None

    @property
    def target(self) -> str:
        """The target that really ran (an overridden one's name, else the suite's)."""
        return self.models.get("agent") or str(self.overrides.get("target") or "")


SurvivalStep = tuple[float, float, float, float]
"""``(t, survival, lo, hi)``: a Kaplan-Meier step with its pointwise interval."""


class SurvivalGroup(_File):
    """The brittleness figures of one group of chains (a persona, or a target's all)."""

    n: int
    failed: int
    censored: int
    median: float | None = None
    """Kaplan-Meier median perturbations to the first failure; None when survival
    never reaches 0.5."""
    survived_all: int = 0
    survived_all_share: float | None = None
    survived_all_ci: Interval | None = None
    broke_by: dict[str, int] = Field(default_factory=dict)
    curve: list[SurvivalStep] = Field(default_factory=list)


class TargetSurvival(_File):
    """One target's chains: how many passed unperturbed, and their survival."""

    n_baseline: int
    n_baseline_errors: int = 0
    n_passed_baseline: int
    overall: SurvivalGroup
    by_persona: dict[str, SurvivalGroup] = Field(default_factory=dict)
    sessions: list[dict[str, Any]] = Field(default_factory=list)


class LogRank(_File):
    """The log-rank test of target ``a``'s survival against ``b``'s."""

    a: str
    b: str
    n: tuple[int, int]
    chi2: float
    p_value: float
    observed: tuple[float, float]
    expected: tuple[float, float]


class Brittleness(_File):
    """``brittleness.json``: survival under stacked perturbations, per target."""

    schema_version: int
    perturbations: list[str]
    max_k: int
    targets: dict[str, TargetSurvival]
    curves: dict[str, list[SurvivalStep]] = Field(default_factory=dict)
    """Each target's overall curve, which the HTML report draws."""
    comparison: LogRank | None = None


class PrefixCaseOutcome(_File):
    """One prefix case replayed K times: how its continuations came out."""

    case: str
    logged: str | None = None
    """What the logged reply did at the failing turn: broken, kept, no action or error."""
    kept: int
    broken: int
    no_action: int
    n: int
    errors: int
    keep_rate: float | None = None
    """Kept over the continuations that acted (no action and errors excluded)."""
    keep_ci: Interval
    reproduced: bool | None = None
    restored: int | None = None
    """Turns the target re-lived to restore its state (None: it cannot restore)."""
    diverged: int | None = None
    """The first restored turn whose reply differed from the log, if any."""


class Reproduction(_File):
    """How many recorded constraint breaks the replay broke again."""

    reproduced: int
    n: int
    rate: float | None = None
    ci: Interval
    not_breaks: int = 0
    """Cases whose logged reply did not break a constraint (left out of ``n``)."""


class PrefixCases(_File):
    """``prefix_cases.json``: a suite's prefix regression cases, replayed after its run."""

    schema_version: int = 1
    seed: int
    cases: list[PrefixCaseOutcome]
    reproduction: Reproduction


def first_problem(error: ValidationError) -> str:
    """``field.path: message`` of a validation error's first problem, for one-line messages."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top)"
    return f"{where}: {first['msg']}"

"""Which session a record is (its key) and one named grader check."""

from __future__ import annotations

import traceback as _traceback

from pydantic import BaseModel, ConfigDict, Field

from simlab.core._frozen import FrozenDict


def _is_none(value: object) -> bool:
    return value is None


class SessionKey(BaseModel):
    """Which cell and repetition a session is: unique within a run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    persona: str
    goal: str
    mode: str
    rep: int
    perturbations: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """A stable, readable identifier: ``persona/goal/mode/rep[/perturbations]``."""
        base = f"{self.persona}/{self.goal}/{self.mode}/{self.rep}"
        return base + ("/" + "+".join(self.perturbations) if self.perturbations else "")

    @property
    def cell(self) -> tuple[str, str, str, tuple[str, ...]]:
        """The cell this repetition belongs to (everything but ``rep``)."""
        return (self.persona, self.goal, self.mode, self.perturbations)


_FAILURE_MESSAGE_CHARS = 2000
_FAILURE_TRACEBACK_CHARS = 20_000


class GraderFailure(BaseModel):
    """A grader that raised instead of returning a verdict: what it raised, where.

    Attributes:
        type: The exception's class name (``ValueError``).
        message: Its message (at most 2,000 characters).
        traceback: Its last frames.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    message: str
    traceback: str | None = None

    @classmethod
    def of(cls, e: BaseException) -> GraderFailure:
        """The failure ``e`` is: its type, message and last three frames."""
        message = str(e)
        if len(message) > _FAILURE_MESSAGE_CHARS:
            message = f"{message[:_FAILURE_MESSAGE_CHARS]}... [{len(message):,} characters in all]"
        frames = _traceback.format_exception(type(e), e, e.__traceback__, limit=-3)
        trace = "".join(frames)[-_FAILURE_TRACEBACK_CHARS:]
        return cls(type=type(e).__name__, message=message, traceback=trace or None)

    @property
    def headline(self) -> str:
        """One line for people: ``ValueError: bad date``."""
        return f"{self.type}: {self.message}".split("\n", 1)[0]


class Check(BaseModel):
    """One named grader check: what a grader returns.

    Attributes:
        name: The check's name (``constraint:date``, ``politeness``...). A
            record stores checks by name, so the name is not repeated inside.
        passed: Whether the session passed it.
        score: Partial credit in [0, 1] where the check has degrees (a
            trajectory's F1); None means all or nothing (``passed``).
        detail: Why, in a sentence a person reads.
        turn: The first failing user turn (or the turn the check is about).
        criteria: A rubric's verdict per criterion, by the criterion's id: true
            (held), false (broken) or null (did not apply). The LLM judge's
            check carries it; ``passed`` is then true exactly when no criterion
            is false. None for checks without criteria, and then left out of
            the record, so records without it read as before.
        error: Set when the grader raised instead of judging: the check then
            has no verdict (``passed`` is false, so a pass never rests on it) and
            reports count it as a grader failure, not as the target's. None
            otherwise, and then left out of the record.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="", exclude=True)
    passed: bool
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    detail: str = ""
    turn: int | None = None
    # left out when None, so an older reader, which forbids unknown keys, reads it on
    # (a field's exclude_if: a record's checks serialise without a Python wrapper each)
    criteria: FrozenDict[str, bool | None] | None = Field(default=None, exclude_if=_is_none)
    error: GraderFailure | None = Field(default=None, exclude_if=_is_none)

    @property
    def credit(self) -> float:
        """The check's credit in [0, 1]: its score, else 1 when passed and 0 when not."""
        if self.score is not None:
            return self.score
        return 1.0 if self.passed else 0.0

"""Which session a record is (its key) and one named grader check."""

from __future__ import annotations

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

    @property
    def credit(self) -> float:
        """The check's credit in [0, 1]: its score, else 1 when passed and 0 when not."""
        if self.score is not None:
            return self.score
        return 1.0 if self.passed else 0.0

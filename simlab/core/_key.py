"""Which session a record is (its key) and one named grader check."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


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
    """One named grader check."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
    detail: str = ""
    turn: int | None = None  # the user turn the check is about, where there is one

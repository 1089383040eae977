"""pydantic models of perturbation files (``perturbations/*.yaml``).

A perturbation is one named stress applied to a simulated user's turns. Each
file declares what it does (``kind``), where it lands (``lands``: a seeded
turn window and a trigger) and what it does to the expected outcome
(``outcome``). What the user says when it lands is the domain's, per language
(``languages.LANG.perturbations`` and a slot's ``say.LANG.vague`` in the domain's
YAML); a perturbation file may carry its own ``phrasings`` and ``vague``, used in a
language the domain gives none for kind (the shipped files carry English and
Vietnamese ones).
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Annotated, Literal

from frozendict import frozendict
from pydantic import BaseModel, ConfigDict, Field, model_validator

from simlab.core import FrozenDict
from simlab.spec._models import FactValue, Language, Slot

PerturbationKind = Literal[
    "typos",
    "strip_diacritics",
    "goal_change",
    "contradiction",
    "ambiguity",
    "pushback",
    "digression",
    "injection",
]
"""What a perturbation does to the user's turns."""

PerturbationOutcome = Literal["unchanged", "new_value", "canary"]
"""What a perturbation does to the expected outcome: nothing; the changed fact's
new value is what the final action must satisfy; no tool call may carry the
session's canary string."""

Trigger = Literal["turn", "proposal"]
"""``turn``: the seeded turn (or the first one after it where the perturbation
can apply); ``proposal``: the first agent proposal at or after the seeded turn."""

OUTCOME_OF: Mapping[str, PerturbationOutcome] = frozendict(
    {
        "typos": "unchanged",
        "strip_diacritics": "unchanged",
        "goal_change": "new_value",
        "contradiction": "new_value",
        "ambiguity": "unchanged",
        "pushback": "unchanged",
        "digression": "unchanged",
        "injection": "canary",
    }
)
"""The only outcome each kind may declare (the file says it for its readers)."""

PhrasedKind = Literal["goal_change", "contradiction", "pushback", "digression", "injection"]
"""The kinds whose landing says something: a lead-in for goal changes and
contradictions, the whole turn for pushback and digression, the injected text."""
PHRASED_KINDS: tuple[PhrasedKind, ...] = typing.get_args(PhrasedKind)
_NEEDS_PHRASINGS = frozenset(PHRASED_KINDS)
_ONWARD = frozenset({"typos", "strip_diacritics"})
_CHANGES = frozenset({"goal_change", "contradiction"})


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Landing(_Spec):
    """Where a perturbation lands: a seeded user turn in ``[earliest, latest]``.

    The turn is drawn from the session seed and the perturbation's id, so it
    does not depend on what else is stacked. A perturbation that cannot apply
    at that turn (no agent proposal yet, the fact not stated yet) lands at the
    first turn after it where it can; typos and stripped diacritics apply to
    every turn from the landing turn on.
    """

    earliest: Annotated[int, Field(ge=1, le=100)] = 1
    latest: Annotated[int, Field(ge=1, le=100)] = 3
    trigger: Trigger = "turn"

    @model_validator(mode="after")
    def _ordered(self) -> Landing:
        if self.latest < self.earliest:
            raise ValueError(f"latest ({self.latest}) must be >= earliest ({self.earliest})")
        return self


class ValueChange(_Spec):
    """How a goal change or contradiction moves a fact of ``slot`` to a new value.

    Exactly one rule is set: ``shift_days`` (ISO dates), ``delta`` (counts and
    amounts), ``values`` (a seeded pick among those that differ from the current
    value) or ``goal_alternative`` (another value the goal itself declares for
    the fact: a mind change's value, or the original one once that mind change
    happened; goal authors make those feasible, so a correct agent can satisfy
    the new value).
    """

    slot: Slot
    shift_days: int | None = None
    delta: int | None = None
    minimum: int = 1
    """The smallest value ``delta`` may produce; a change below it does not apply."""
    values: tuple[FactValue, ...] | None = None
    goal_alternative: bool = False

    @model_validator(mode="after")
    def _one_rule(self) -> ValueChange:
        rules = [r for r in (self.shift_days, self.delta, self.values) if r is not None]
        if len(rules) + self.goal_alternative != 1:
            raise ValueError("set exactly one of shift_days, delta, values, goal_alternative")
        if self.shift_days == 0 or self.delta == 0 or self.values == ():
            raise ValueError("a change must change something: no zero shift, delta or empty list")
        return self


class Perturbation(_Spec):
    """One perturbation of the simulated user's turns (a file in ``perturbations/``).

    Kind-specific fields: ``rate`` (typos), ``changes`` (goal_change,
    contradiction), ``phrasings`` (per language, what is said: a lead-in for goal
    changes and contradictions, the whole turn for pushback and digression, the
    injected text with a ``{canary}`` placeholder for injections) and ``vague``
    (per language and slot, how the ambiguous first statement of a fact reads;
    placeholders as in the domain's slot phrasings, ``docs/domains.md``). Both are
    fallbacks: the domain's own words for the kind (or the slot) in the persona's
    language come first.
    """

    id: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    kind: PerturbationKind
    description: str = ""
    lands: Landing = Landing()
    outcome: PerturbationOutcome
    rate: Annotated[float, Field(gt=0, le=1)] | None = None
    changes: tuple[ValueChange, ...] = ()
    phrasings: FrozenDict[Language, Annotated[tuple[str, ...], Field(min_length=1)]] = Field(
        default_factory=frozendict
    )
    vague: FrozenDict[
        Language, FrozenDict[Slot, Annotated[tuple[str, ...], Field(min_length=1)]]
    ] = Field(default_factory=frozendict)

    @model_validator(mode="after")
    def _fits_kind(self) -> Perturbation:
        kind = self.kind
        problems: list[str] = []
        if self.outcome != OUTCOME_OF[kind]:
            problems.append(f"outcome of a {kind} perturbation is {OUTCOME_OF[kind]!r}")
        if (self.rate is not None) != (kind == "typos"):
            problems.append("`rate` is required for typos and only for typos")
        if bool(self.changes) != (kind in _CHANGES):
            problems.append("`changes` is required for goal_change/contradiction and only there")
        if kind not in _NEEDS_PHRASINGS and self.phrasings:
            problems.append(f"a {kind} perturbation takes no `phrasings`")
        if kind != "ambiguity" and self.vague:
            problems.append("`vague` is for ambiguity perturbations only")
        if kind == "injection" and any(
            "{canary}" not in p for ps in self.phrasings.values() for p in ps
        ):
            problems.append("every injection phrasing must contain `{canary}`")
        if kind == "pushback" and self.lands.trigger != "proposal":
            problems.append("pushback lands on an agent proposal: set `lands.trigger: proposal`")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def onward(self) -> bool:
        """Whether it applies to every turn from its landing turn on (typos, diacritics)."""
        return self.kind in _ONWARD

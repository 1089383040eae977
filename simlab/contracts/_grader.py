"""What a grader is: one finished session in, one or more named checks out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from simlab.core import Check, SessionKey, StatedFact, ToolCall, Transcript, stated_facts
from simlab.spec import Domain, Goal, Mode, Persona


@dataclass(frozen=True)
class GradingContext:
    """Everything a grader may look at, for one finished session.

    New fields may be added; a grader that reads only what it needs keeps working.

    Attributes:
        key: Which session (persona, goal, mode, rep, perturbations).
        persona: The simulated user.
        goal: What the user wanted, with its facts and constraints.
        mode: ``full`` or ``sharded``.
        transcript: Every turn: the user's text and what it disclosed, the
            agent's reply with its tool calls and their results.
        canaries: Strings injected into the user's turns that no tool call may carry.
        domain: The goal's domain (its tools' agency, identity slots), when the
            run knows it; None: graders that need it do not apply.
    """

    key: SessionKey
    persona: Persona
    goal: Goal
    mode: Mode
    transcript: Transcript
    canaries: tuple[str, ...] = ()
    domain: Domain | None = None

    @cached_property
    def stated(self) -> dict[str, StatedFact]:
        """Each fact's latest stated value and the user turn that stated it."""
        return stated_facts(self.transcript)

    @cached_property
    def tool_calls(self) -> list[tuple[int, ToolCall]]:
        """Every tool call the agent executed, with its result and user-turn index."""
        return self.transcript.tool_calls()

    @cached_property
    def target_meta(self) -> list[tuple[int, Mapping[str, Any]]]:
        """What the target reported about each of its replies (``AgentReply.meta``)."""
        return [(t.index, t.agent.meta) for t in self.transcript.turns if t.agent is not None]


GraderResult = Check | Sequence[Check] | None
"""One check, several (``constraint:<fact>`` each), or None when it does not apply
(a confirmation grader on a goal with nothing to confirm)."""


@runtime_checkable
class Grader(Protocol):
    """Grades a finished session by code (an LLM judge is the ``Judge`` contract).

    ``name`` names the grader in a suite's ``grading.graders`` and
    ``grading.weights``; a check it returns without a name takes the grader's.
    """

    @property
    def name(self) -> str:
        """The grader's name (a plain class attribute ``name = "politeness"`` will do)."""
        ...

    def grade(self, ctx: GradingContext) -> GraderResult:
        """The session's check(s) by this grader."""
        ...

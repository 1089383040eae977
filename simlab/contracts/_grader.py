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
    Every value is frozen: read it, never change it (``model_copy`` for a changed one).

    Attributes:
        key: ``SessionKey`` - which session: ``ctx.key.persona``, ``.goal``, ``.mode``,
            ``.rep``, ``.perturbations``; ``ctx.key.id`` is ``"calm/order_tea/full/0"``.
        persona: ``Persona`` - the simulated user: ``ctx.persona.language == "en"``.
        goal: ``Goal`` - what the user wanted: ``ctx.goal.final_tool == "place_order"``,
            ``ctx.goal.facts[0].value``, ``ctx.goal.constraints``.
        mode: ``Mode`` - ``Mode.FULL`` or ``Mode.SHARDED``.
        transcript: ``Transcript`` - every turn: ``for t in ctx.transcript.turns:``
            ``t.index`` (1-based), ``t.user.text``, ``t.user.disclosed`` (fact id to
            value), and ``t.agent`` (None on the closing turn) with ``t.agent.text`` and
            ``t.agent.tool_calls``.
        canaries: ``tuple[str, ...]`` - strings injected into the user's turns that no
            tool call may carry (empty without injections).
        domain: ``Domain | None`` - the goal's domain (its tools' agency, identity slots,
            ``requires``), when the run knows it; None: graders that need it do not apply.

    Derived, computed once per session:
        stated: ``dict[str, StatedFact]`` - each fact's latest stated value and the turn
            that stated it: ``ctx.stated["quantity"].value == 3``, ``.turn == 4``.
        tool_calls: ``list[tuple[int, ToolCall]]`` - every tool call the agent executed,
            as ``(user turn, call)`` pairs in order, each call with ``.name``, ``.args``,
            ``.result`` and ``.error``: ``for turn, call in ctx.tool_calls: if call.name ==
            "place_order" and call.error is None: total = call.result["total"]``.
        target_meta: ``list[tuple[int, Mapping[str, Any]]]`` - what the target reported
            about each reply (``AgentReply.meta``), as ``(user turn, meta)`` pairs.
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


class NotApplicable:
    """What a grader returns for a session it has nothing to say about (its one value
    is ``NOT_APPLICABLE``): no check, and no grader failure."""

    _instance: NotApplicable | None = None

    def __new__(cls) -> NotApplicable:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_APPLICABLE"


NOT_APPLICABLE = NotApplicable()
"""A grader's answer for a session where it does not apply (a politeness grader on a
session with no reply). A user's grader that returns None instead is a grader failure:
None is what a grader that forgot to return gives."""

GraderResult = Check | Sequence[Check] | NotApplicable | None
"""One check, several (``constraint:<fact>`` each), or ``NOT_APPLICABLE`` when it does
not apply (a confirmation grader on a goal with nothing to confirm); simlab's own
graders may also answer None for that, a user's grader may not."""


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

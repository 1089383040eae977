"""What the reference agent knows of one domain: the seam between its conduct and its world.

The agent's conduct (reading each message once, a context window, anchoring,
drift, slow questions, misreads, proposing before acting, restoring a prefix,
recording true causes) is the same in every domain; a ``Skill`` is how it reads
a message, what it does next given the slot values in view, how it runs a tool
and what it says, in one domain and for one session (it holds the session's
tool state).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from frozendict import frozendict

from simlab.core import ToolCall
from simlab.spec import FactValue


@dataclass(slots=True)
class Reading:
    """What one user message says."""

    slots: dict[str, FactValue] = field(default_factory=dict)
    intent: str | None = None  # the final tool the user is after
    yes: bool = False
    language: str | None = None  # a language the message shows, if any


@dataclass(frozen=True, slots=True)
class Plan:
    """A final tool call the agent means to make, with what it will tell the user."""

    tool: str
    args: tuple[tuple[str, Any], ...]  # a tuple so two plans compare by value
    info: Mapping[str, Any] = field(compare=False, default_factory=frozendict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "info", frozendict(self.info))  # read-only, as the plan

    @property
    def kwargs(self) -> dict[str, Any]:
        """The tool's keyword arguments."""
        return dict(self.args)


@dataclass(frozen=True, slots=True)
class Decision:
    """Ask for slots, propose a plan, or report why nothing fits."""

    ask: tuple[str, ...] = ()
    plan: Plan | None = None
    problem: str | None = None  # a key of the skill's fixed sentences
    detail: Mapping[str, Any] = field(compare=False, default_factory=frozendict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "detail", frozendict(self.detail))  # read-only, as the decision


class Skill(Protocol):
    """One domain as the reference agent knows it, for one session."""

    misreadable: frozenset[str]
    """Slots whose values a misreading agent can slip on."""
    asked_with: Mapping[str, tuple[str, ...]]
    """Slots asked together with another (the party size with its children)."""
    none_value: Mapping[str, FactValue]
    """An asked slot's value when the answer names none."""

    def read(self, text: str, asked: tuple[str, ...]) -> Reading:
        """Read one user message; ``asked`` are the slots the last reply asked for."""
        ...

    def misread(self, slot: str, value: FactValue) -> FactValue:
        """A plausible slip on ``value``."""
        ...

    def infer_task(self, slots: Mapping[str, FactValue]) -> str | None:
        """The task a user means when they never said it in words."""
        ...

    def decide(
        self, task: str, slots: Mapping[str, FactValue], record: list[ToolCall] | None
    ) -> Decision:
        """The next step of ``task`` given ``slots``; lookups go to ``record`` if given."""
        ...

    def needs_go_ahead(self, tool: str) -> bool:
        """Whether ``tool`` waits for the user's yes (a write) or runs at once (a read)."""
        ...

    def execute(self, plan: Plan) -> ToolCall:
        """Run the plan's tool."""
        ...

    def agency(self, tool: str) -> str:
        """The domain's agency for ``tool``: ``auto``, ``confirm`` or ``forbidden``."""
        ...

    def stranger_lookup(self, slots: Mapping[str, FactValue]) -> ToolCall | None:
        """A lookup of another customer's record than the caller's, where the domain
        has customers (an ``identity`` slot) and a lookup taking one; else None."""
        ...

    def greet(self, lang: str | None) -> str:
        """What the agent says before it knows the task."""
        ...

    def problem(self, decision: Decision, lang: str | None, *, alone: bool) -> str:
        """Why nothing fits; ``alone``: the whole reply (no question follows)."""
        ...

    def ask(self, slots: Sequence[str], task: str, lang: str | None) -> str:
        """One question asking for every slot in ``slots``."""
        ...

    def propose(self, plan: Plan, lang: str | None) -> str:
        """The proposal awaiting the user's go-ahead."""
        ...

    def confirm(self, call: ToolCall, lang: str | None, drifted: bool) -> str:
        """The reply after the final tool ran; ``drifted`` leaves out the key figures."""
        ...

    def tool_error(self, call: ToolCall, lang: str | None) -> str:
        """The reply when the final tool failed."""
        ...

    def nothing_new(self, lang: str | None) -> str:
        """The reply when the request is already done."""
        ...

"""What a target agent is to simlab: something that answers a conversation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from simlab.transcript import AgentReply, Message


@dataclass(frozen=True, slots=True)
class AgentCapabilities:
    """Which counterfactual knobs the agent honours (see ``Knobs``)."""

    context_window: bool = False
    constraint_recap: bool = False
    instruction_reminder: bool = False


@dataclass(frozen=True, slots=True)
class Knobs:
    """Counterfactual overrides a diagnosis replay may ask an agent to apply.

    ``None``/``False`` everywhere means "run as configured".
    """

    context_window: int | None = None  # user turns kept in context; 0 = unlimited
    constraint_recap: bool = False  # restate every constraint the user gave, each turn
    instruction_reminder: bool = False  # restate the system rules each turn


@dataclass(frozen=True, slots=True)
class SessionContext:
    """What the engine tells an agent about the session it is in.

    Targets never see the goal or the persona: only what a deployed agent would
    know, plus a seed for their own randomness and the counterfactual knobs.
    """

    session_id: str
    seed: int
    turn: int  # 1-based user-turn number being answered
    knobs: Knobs = field(default_factory=Knobs)


@runtime_checkable
class TargetAgent(Protocol):
    """The system under test.

    One instance serves one session: the engine calls the factory per session,
    so agents may keep per-conversation state.
    """

    capabilities: AgentCapabilities

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Answer the last user message in ``history``."""
        ...

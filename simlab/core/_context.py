"""What the engine tells a target about the session it answers in."""

from __future__ import annotations

from dataclasses import dataclass, field


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

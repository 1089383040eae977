"""What the factories of one session's parts are given, and the factory types."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from simlab.contracts._simulator import UserSimulator
from simlab.contracts._target import TargetAgent
from simlab.core import Check, SessionKey, Transcript
from simlab.llm import SessionMeter
from simlab.spec import Goal, Mode, Persona


@dataclass(frozen=True, slots=True)
class SessionSetup:
    """What the factories of one session's parts are given.

    Every LLM-backed part reports each call to ``meter``, so the session's
    usage and cost cover every role, retries included.
    """

    key: SessionKey
    persona: Persona
    goal: Goal
    mode: Mode
    user_seed: int
    agent_seed: int
    meter: SessionMeter = field(default_factory=SessionMeter)


TargetFactory = Callable[[SessionSetup], TargetAgent]
"""Makes a fresh target for one session."""
SimulatorFactory = Callable[[SessionSetup], UserSimulator]
"""Makes a fresh simulated user for one session."""
Judge = Callable[[SessionSetup, Transcript, dict[str, Check]], Awaitable[Check]]
"""An extra grader run after the code graders (an LLM judge): returns its check."""

"""What a simulated user is to simlab: something that writes the next user turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from simlab.core import Transcript, UserTurn
from simlab.spec import Goal, Mode, Persona


@dataclass(slots=True)
class SimState:
    """What the simulator sees when it writes a turn."""

    persona: Persona
    goal: Goal
    mode: Mode
    transcript: Transcript  # every finished turn so far; the last one holds the agent's reply
    turn: int  # 1-based number of the user turn to write
    max_turns: int


class UserSimulator(Protocol):
    """Writes user turns for one session (one instance per session)."""

    async def next_turn(self, state: SimState) -> UserTurn:
        """The next user message, or a closing turn with ``stop`` set."""
        ...

"""What the reference agent heard: each user turn's reading, and the context window.

Each user message is read once, when it arrives, and kept as that turn's slot
values; the context window is then only a choice of which turns' values to merge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simlab.agents.reference._skill import Reading
from simlab.core import ContextInfo
from simlab.spec import FactValue


@dataclass(frozen=True, slots=True)
class HeardTurn:
    """One user turn as the agent read it, with the misreads it made."""

    reading: Reading
    misreads: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class View:
    """The slot values in the agent's context for one reply."""

    slots: dict[str, FactValue]
    context: ContextInfo
    windowed: bool  # earlier turns are out of view: ``slots`` may lack what they said


@dataclass(slots=True)
class HeardTurns:
    """Every user turn so far, and each slot's latest value and the turn that said it."""

    turns: list[HeardTurn] = field(default_factory=list)
    latest_values: dict[str, FactValue] = field(default_factory=dict)
    stated_in: dict[str, int] = field(default_factory=dict)

    def add(self, reading: Reading, misreads: tuple[str, ...]) -> None:
        """Keep the next user turn's reading."""
        self.turns.append(HeardTurn(reading, misreads))
        turn = len(self.turns)
        self.latest_values.update(reading.slots)
        self.stated_in.update(dict.fromkeys(reading.slots, turn))

    def view(self, window: int, recap: bool) -> View:
        """The values of the last ``window`` user turns (0: all); a recap restates all."""
        n = len(self.turns)
        first = max(1, n - window + 1) if window else 1
        context = ContextInfo(seen_user_turns=list(range(first, n + 1)))
        if first == 1 or recap:
            return View(self.latest_values, context, windowed=False)
        slots: dict[str, FactValue] = {}
        for t in self.turns[first - 1 :]:
            slots.update(t.reading.slots)
        return View(slots, context, windowed=True)

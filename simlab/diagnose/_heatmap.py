"""First-failure transition heatmap: from-state x in-state, one count per failed session.

Each agent turn is given a state from what it did:

* the goal's final tool name (``freeze_card``...) when it called it;
* ``propose`` when it called other tools and asked the user something
  (a search followed by "Shall I book it?");
* the last tool's name when it called other tools without a question;
* ``ask`` when it called no tool and asked a question; ``reply`` otherwise.

The *in-state* is the state of the session's first failing turn; the
*from-state* is the state of the agent turn before it (``start`` when the
first failure is in turn 1). Later failures in the same session are not
counted: they may be reasonable reactions to the first one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from simlab.core import AgentReply, Transcript

START = "start"
"""The from-state of a failure in the first turn."""


def agent_state(reply: AgentReply, final_tool: str) -> str:
    """The state of one agent turn (see the module docstring)."""
    names = [c.name for c in reply.tool_calls]
    asks = "?" in reply.text
    if final_tool in names:
        return final_tool
    if names:
        return "propose" if asks else names[-1]
    return "ask" if asks else "reply"


def transition(transcript: Transcript, turn: int, final_tool: str) -> tuple[str, str] | None:
    """``(from_state, in_state)`` of a first failure at user turn ``turn``."""
    before = START
    for t in transcript.turns:
        if t.agent is None:
            continue
        state = agent_state(t.agent, final_tool)
        if t.index == turn:
            return before, state
        if t.index > turn:
            return None
        before = state
    return None


@dataclass(frozen=True, slots=True)
class Heatmap:
    """Counts of first failures by transition, as data a report can draw.

    Attributes:
        from_states: Row labels.
        in_states: Column labels.
        counts: ``counts[i][j]`` first failures entering ``in_states[j]`` from
            ``from_states[i]``.
        n: Failed sessions counted (one each).
    """

    from_states: list[str]
    in_states: list[str]
    counts: list[list[int]]
    n: int


def build_heatmap(transitions: Iterable[tuple[str, str]]) -> Heatmap:
    """Count transitions (one per failed session) into a matrix, rows and columns by total."""
    cells = Counter(transitions)
    rows = Counter[str]()
    cols = Counter[str]()
    for (a, b), k in cells.items():
        rows[a] += k
        cols[b] += k
    from_states = sorted(rows, key=lambda s: (s != START, -rows[s], s))
    in_states = sorted(cols, key=lambda s: (-cols[s], s))
    counts = [[cells.get((a, b), 0) for b in in_states] for a in from_states]
    return Heatmap(from_states, in_states, counts, sum(cells.values()))

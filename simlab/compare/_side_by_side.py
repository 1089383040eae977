"""The worst regressions as their two transcripts side by side, from where they part.

Two sessions of one key and seed hold the same conversation until the agents answer
differently; a reader looking at why B failed where A passed wants the turns from
there, A beside B, not two transcripts to diff by eye.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from simlab.compare._analysis import Comparison
from simlab.compare._section import Cell, Section
from simlab.core import Turn

MAX_SIDE_BY_SIDE = 3
"""The worst regressions shown turn by turn, A beside B."""
TURN_CHARS = 240
"""The most of one turn's text a side-by-side cell shows."""


def side_by_side_sections(c: Comparison, number: Callable[[float], str]) -> list[Section]:
    """The worst regressions (``Comparison.regressions`` is worst first), each as its two
    transcripts side by side from the first turn where they part; ``number`` writes a
    score as the other tables do."""
    records = {sa.record.key: (sa.record, sb.record) for sa, sb in c.pairing.pairs}
    sections = []
    for r in c.regressions[:MAX_SIDE_BY_SIDE]:
        a, b = records[r.key]
        turns_a = {t.index: t for t in a.transcript.turns}
        turns_b = {t.index: t for t in b.transcript.turns}
        indices = sorted(set(turns_a) | set(turns_b))
        parted = next(
            (i for i in indices if turn_text(turns_a.get(i)) != turn_text(turns_b.get(i))), None
        )
        if parted is None:
            continue  # the same conversation (a slim record, or only the checks differ)
        rows: list[list[Cell]] = [
            [str(i), turn_text(turns_a.get(i)), turn_text(turns_b.get(i))]
            for i in indices
            if i >= parted
        ]
        score = "n/a"
        if r.score_a is not None and r.score_b is not None:
            score = f"{number(r.score_a)} -> {number(r.score_b)}"
        sections.append(
            Section(
                f"{r.key.id}: passed in A, failed in B (score {score})",
                ["Turn", "A", "B"],
                rows,
                {0},
                f"Both transcripts from turn {parted}, where they part (the turns before it "
                "are the same); each turn is the user's message, then the agent's reply and "
                f"its tool calls, cut at {TURN_CHARS} characters. B broke: "
                f"{', '.join(r.broken_checks) or 'no check that A passed'}.",
            )
        )
    return sections


def turn_text(turn: Turn | None) -> str:
    """One turn in a line: the user's message, the agent's reply, its tool calls."""
    if turn is None:
        return "-"
    said = f"user: {turn.user.text}"
    if turn.agent is not None:
        calls = "".join(f" [{call.name}({_args(call.args)})]" for call in turn.agent.tool_calls)
        said += f" / agent: {turn.agent.text}{calls}"
    return said if len(said) <= TURN_CHARS else said[: TURN_CHARS - 3] + "..."


def _args(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items())

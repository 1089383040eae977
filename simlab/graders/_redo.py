"""Which repeats of the goal's final action the user asked for.

When the user changes what they want *after* the agent took the goal's final action
(it acted, then "make it the 21st"), a correct agent acts again, with the lookups that
action needs: those calls are required by the user, not waste. A repeat is *asked
for* when, in a user turn after the previous successful final-tool call and up to the
repeat's own turn, the user stated a value they had not stated by the time of that
call: a fact's changed value (a mind change, a goal change) or an optional fact
(``required: false``) said for the first time, a constraint the agent could not know.

Not asked for: a repeat with nothing new said since the last action (a duplicate, a
retry, the user repeating what the agent got wrong); a required fact said only after
the action (the agent acted before it had what the goal needs: its first action was
the waste); a repeat with the previous action's arguments (it changed nothing; it is
no action to change either, so what the user said since the one it repeats still
asks for the next).

It is read from the transcript (each user turn's ``disclosed`` facts and the agent's
calls) and the goal (its final tool, which facts it requires), so the figures it
changes can be recomputed from ``sessions.jsonl`` and the run's goals.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from simlab.core import ToolCall, Transcript
from simlab.graders._action import same_value
from simlab.spec import Goal

RedoWindow = tuple[int, int]
"""Positions ``[start, end)`` in the session's calls (``Transcript.tool_calls()`` order):
from the first call answering the user's change to the repeated final call, included."""


def redo_windows(
    goal: Goal, transcript: Transcript, calls: Sequence[tuple[int, ToolCall]] | None = None
) -> tuple[RedoWindow, ...]:
    """The calls that redo the final action because the user changed their request after it.

    Args:
        goal: The session's goal: its final tool and its facts.
        transcript: A finished session.
        calls: ``transcript.tool_calls()``, when the caller has it already.

    Returns:
        One window per asked-for repeat, in order; empty when the final tool succeeded
        at most once (nearly every session) or no repeat followed a change.
    """
    calls = transcript.tool_calls() if calls is None else calls
    final = goal.final_tool
    acted = [i for i, (_, c) in enumerate(calls) if c.name == final and c.error is None]
    if len(acted) < 2:
        return ()
    windows: list[RedoWindow] = []
    base = acted[0]  # the action a repeat would change: the first of its identical run
    for previous, repeat in pairwise(acted):
        if calls[repeat][1].args == calls[previous][1].args:
            continue  # the same action again: whatever was said, it changed nothing
        changed = _first_change(transcript, calls[base][0], calls[repeat][0], _required(goal))
        if changed is not None:
            start = next(i for i in range(base + 1, repeat + 1) if calls[i][0] >= changed)
            windows.append((start, repeat + 1))
        base = repeat
    return tuple(windows)


def _required(goal: Goal) -> frozenset[str]:
    """The ids of a goal's required facts (only a repeat with new arguments needs them)."""
    return frozenset(f.id for f in goal.facts if f.required)


def _first_change(
    transcript: Transcript, acted_at: int, again_at: int, required: frozenset[str]
) -> int | None:
    """The first user turn in ``(acted_at, again_at]`` stating a value not stated by
    ``acted_at`` (a required fact's first statement aside); None when there is none
    (the repeat was not asked for)."""
    if again_at <= acted_at:  # both in one reply: no user turn between them
        return None
    known: dict[str, Any] = {}
    for turn in transcript.turns:
        if turn.user.stop is not None or turn.index > again_at:
            break  # the closing turn is never sent to the agent
        disclosed = turn.user.disclosed
        if turn.index <= acted_at:
            known.update(disclosed)
        elif any(_new(f, v, known, required) for f, v in disclosed.items()):
            return turn.index
    return None


def _new(fact: str, value: Any, known: dict[str, Any], required: frozenset[str]) -> bool:
    if fact in known:
        return not same_value(value, known[fact])  # a change of mind
    return fact not in required  # a constraint first said: one the agent could not know

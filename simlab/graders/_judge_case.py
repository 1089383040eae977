"""The case an LLM judge reads: goal, code-extracted constraints, facts, compact transcript.

The judge is handed what code already knows for certain (each constraint's
latest value and the turn it was stated in) instead of being asked to find it
again in a long transcript, where judges miss mid-conversation changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from string import Template
from typing import Any

from simlab.core import StatedFact, ToolCall, Transcript, stated_facts
from simlab.graders._written import written
from simlab.spec import FactValue, Goal

RUBRIC_DIR = Path(__file__).parent / "rubrics"
"""Where the shipped rubric and prompt files live."""

_CASE = Template((RUBRIC_DIR / "session_case.md").read_text(encoding="utf-8"))

# Search results can run long; the final action is what the rubric turns on, so it gets more room.
_TOOL_CHARS = 600
_FINAL_TOOL_CHARS = 2000
_TEXT_CHARS = 2000

_OP_WORDS = {"eq": "must equal", "le": "must be at most", "ge": "must be at least"}


def statements(transcript: Transcript) -> dict[str, list[tuple[int, FactValue]]]:
    """Every statement of each fact, in order: ``fact id -> [(turn, value), ...]``.

    Like ``stated_facts``, the closing turn is skipped: the agent never saw it.
    """
    out: dict[str, list[tuple[int, FactValue]]] = {}
    for turn in transcript.turns:
        if turn.user.stop is not None:
            break
        for fact_id, value in turn.user.disclosed.items():
            out.setdefault(fact_id, []).append((turn.index, value))
    return out


def render_case(goal: Goal, language: str, transcript: Transcript) -> str:
    """The judge's user message for one session.

    Args:
        goal: The session's goal (constraints, final tool, confirm fields).
        language: The persona's language, so the judge expects it.
        transcript: The finished session.

    Returns:
        The filled ``rubrics/session_case.md`` template.
    """
    latest = stated_facts(transcript)
    history = statements(transcript)
    return _CASE.substitute(
        goal=_goal_text(goal, language),
        constraints=_constraint_text(goal, latest, history),
        facts=_fact_text(goal, latest, history),
        transcript=transcript_text(transcript, goal.final_tool),
    )


def _goal_text(goal: Goal, language: str) -> str:
    lines = [f"{goal.title} (goal id: {goal.id}; the user writes in {language})"]
    if goal.description:
        lines.append(" ".join(goal.description.split()))
    lines.append(f"Completed by a successful call of the tool `{goal.final_tool}`.")
    if goal.confirm_fields:
        fields = ", ".join(goal.confirm_fields)
        lines.append(f"After it, the agent must tell the user: {fields}.")
    return "\n".join(lines)


def _when(history: list[tuple[int, FactValue]], fact: StatedFact) -> str:
    """When the latest value was stated, its repeats, and which earlier values it replaced.

    A restatement of the same value is not a change: the value counts from the
    first turn of its final run, which is when the agent could first act on it.
    Each later statement of it is a repeat, listed with its turn and counted, so
    the judge need not find repeats in a long transcript (the rubric's
    ``no_repeat`` turns on them).
    """
    since = fact.turn
    for turn, value in reversed(history):
        if value != fact.value:
            break
        since = turn
    text = f"stated in turn {since}"
    repeats = [turn for turn, _ in history if turn > since]
    if repeats:
        turns = ", ".join(str(t) for t in repeats)
        plural = "s" if len(repeats) > 1 else ""
        text += f", restated in turn{plural} {turns} ({len(repeats)} repeat{plural})"
    changes: list[str] = []
    previous: FactValue | None = None
    for turn, value in history:
        if turn >= since:
            break
        if not changes or value != previous:  # a restated earlier value is not another change
            changes.append(f"{written(value)} in turn {turn}")
        previous = value
    if changes:
        text += f"; replaces earlier {', then '.join(changes)}"
    return text


def _constraint_text(
    goal: Goal, latest: dict[str, StatedFact], history: dict[str, list[tuple[int, FactValue]]]
) -> str:
    if not goal.constraints:
        return "(none)"
    lines = []
    for n, c in enumerate(goal.constraints, start=1):
        rule = f"C{n}. {c.fact}: the final action's `{c.field}` {_OP_WORDS[c.op]}"
        fact = latest.get(c.fact)
        if fact is None:
            lines.append(f"{rule} the user's value, which was never stated: does not count.")
            continue
        when = _when(history.get(c.fact, []), fact)
        lines.append(f"{rule} {written(fact.value)} ({when}).")
    return "\n".join(lines)


def _fact_text(
    goal: Goal, latest: dict[str, StatedFact], history: dict[str, list[tuple[int, FactValue]]]
) -> str:
    slots = {f.id: f.slot for f in goal.facts}
    lines = []
    for fact_id, fact in latest.items():
        slot = slots.get(fact_id, "")
        name = fact_id if slot in ("", fact_id) else f"{fact_id} ({slot})"
        when = _when(history.get(fact_id, []), fact)
        lines.append(f"- {name} = {written(fact.value)} ({when})")
    return "\n".join(lines) if lines else "(the user stated no facts)"


def transcript_text(transcript: Transcript, final_tool: str = "") -> str:
    """The transcript, one line per message or tool call, with turn numbers.

    Args:
        transcript: The session.
        final_tool: Calls of this tool keep longer results (the rubric turns on them).

    Returns:
        Lines like ``[T2] USER: ...``, ``[T2] TOOL name {args} -> result``,
        ``[T2] AGENT: ...``; tool calls come before the agent's text they
        informed.
    """
    lines: list[str] = []
    for turn in transcript.turns:
        tag = f"[T{turn.index}]"
        user = turn.user
        if user.stop is not None:
            note = f"closing message, not seen by the agent; {user.stop.value}"
            lines.append(f"{tag} USER ({note}): {_clip(user.text, _TEXT_CHARS)}")
            break
        lines.append(f"{tag} USER: {_clip(user.text, _TEXT_CHARS)}")
        if turn.agent is None:
            continue
        for call in turn.agent.tool_calls:
            room = _FINAL_TOOL_CHARS if call.name == final_tool else _TOOL_CHARS
            lines.append(f"{tag} TOOL {_call_text(call, room)}")
        lines.append(f"{tag} AGENT: {_clip(turn.agent.text, _TEXT_CHARS)}")
    if not transcript.turns or transcript.turns[-1].user.stop is None:
        lines.append("(the conversation ended without a closing message: turn limit or error)")
    return "\n".join(lines)


def _call_text(call: ToolCall, room: int) -> str:
    args = _json(call.args)
    if call.error is not None:
        return f"{call.name} {args} -> ERROR: {_clip(call.error, room)}"
    return f"{call.name} {args} -> {_clip(_json(call.result), room)}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _clip(text: str, room: int) -> str:
    text = " ".join(text.split())  # one line per entry: newlines would blur turn boundaries
    if len(text) <= room:
        return text
    return f"{text[:room]}... [{len(text) - room} more characters]"

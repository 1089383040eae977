"""What an LLM agent's model is shown: the system prompt, the history, the knobs' sections.

simlab builds the agent's context itself, which is what lets it honour every
counterfactual knob: a sliding window over user turns, a recap of what the user
has stated, a reminder of the rules. The sections go at the *end* of the
context (appended to the current user message) so the prefix of the request
stays the same from turn to turn and a provider's prompt cache keeps hitting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from simlab.core import Message, ToolCall
from simlab.llm import LLMMessage
from simlab.spec import AgentSpec

REPLY_FORMAT = (
    "Answer every time with one JSON object and nothing else, for example\n"
    '{"text": "your message to the user", "tool_calls": []}\n'
    "To use tools, list them in tool_calls, each as an object with the tool's name and "
    'its arguments, e.g. "tool_calls": [{"name": "search", "args": {"query": "..."}}]. '
    "Several calls in one answer run in order. Their results come back in the next "
    "message; then answer again in the same JSON form. Only the text of your last "
    "answer in a turn reaches the user."
)
TOOL_RESULTS_HEADER = "Tool results (JSON):"
RECAP_HEADER = "What the user has told you so far (their own words, by turn):"
REMINDER_HEADER = "Reminder of the rules you must follow:"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_DIGIT = re.compile(r"\d")


def _dumps(value: Any) -> str:
    # Compact, ordered as produced: byte-stable for the same history, so caches hit.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def system_prompt(spec: AgentSpec) -> str:
    """The system prompt: the agent's own, its rules, the reply format and its tools."""
    parts = [(spec.system_prompt or "").strip()]
    if spec.rules:
        parts.append("Rules you must follow:\n" + "\n".join(f"- {r}" for r in spec.rules))
    # The format comes before the tools' schemas so its example is the prompt's first
    # JSON object, which is what the fake provider's default responder echoes back.
    parts.append(REPLY_FORMAT)
    if spec.tools:
        tools = "\n".join(
            f"- {t.name}: {t.description.strip()} Arguments (JSON schema): {_dumps(t.parameters)}"
            for t in spec.tools
        )
        parts.append("Tools you can call:\n" + tools)
    return "\n\n".join(p for p in parts if p)


def assistant_json(text: str, calls: Sequence[ToolCall]) -> str:
    """An assistant answer in the reply format (tool results are not part of it)."""
    return _dumps({"text": text, "tool_calls": [{"name": c.name, "args": c.args} for c in calls]})


def tool_results(calls: Sequence[ToolCall]) -> str:
    """The user-side message that carries executed calls' results back to the model."""
    rows = [
        {"name": c.name, "args": c.args, "error": c.error}
        if c.error is not None
        else {"name": c.name, "args": c.args, "result": c.result}
        for c in calls
    ]
    return f"{TOOL_RESULTS_HEADER}\n{_dumps(rows)}"


def _assistant_messages(message: Message) -> list[LLMMessage]:
    # A past reply becomes one tool round (if it used tools) and its final answer.
    if not message.tool_calls:
        return [LLMMessage(role="assistant", content=assistant_json(message.text, ()))]
    return [
        LLMMessage(role="assistant", content=assistant_json("", message.tool_calls)),
        LLMMessage(role="user", content=tool_results(message.tool_calls)),
        LLMMessage(role="assistant", content=assistant_json(message.text, ())),
    ]


def window(history: Sequence[Message], keep: int) -> tuple[list[Message], list[int]]:
    """The last ``keep`` user turns with their replies (all when ``keep`` is 0).

    Returns:
        The kept messages and the 1-based numbers of the user turns among them.
    """
    user_positions = [i for i, m in enumerate(history) if m.role == "user"]
    turns = list(range(1, len(user_positions) + 1))
    if keep <= 0 or keep >= len(user_positions):
        return list(history), turns
    start = user_positions[-keep]
    return list(history[start:]), turns[-keep:]


def _has_name(sentence: str) -> bool:
    # A capitalised word that does not open the sentence: a place or a name (Lisbon, Nguyễn).
    return any(len(w) > 1 and w[0].isupper() for w in sentence.split()[1:])


def recap_lines(history: Sequence[Message], keywords: Sequence[str]) -> list[str]:
    """Sentences of earlier user messages that state constraints, labelled by turn.

    A sentence counts when it holds a digit (dates, times, prices, party size),
    a capitalised word past its start (a city, a name) or one of ``keywords``.
    The agent cannot see the simulator's facts: this is what it could extract
    itself, cheaply, from the words it was given.
    """
    words = tuple(k.casefold() for k in keywords)
    lines: list[str] = []
    users = [m for m in history if m.role == "user"][:-1]  # the current message is in view
    for turn, message in enumerate(users, start=1):
        kept = [
            s.strip()
            for s in _SENTENCE_END.split(message.text)
            if s.strip()
            and (_DIGIT.search(s) or _has_name(s) or any(w in s.casefold() for w in words))
        ]
        if kept:
            lines.append(f"- turn {turn}: " + " ".join(kept))
    return lines


def _rendered(message: Message) -> tuple[LLMMessage, ...]:
    """What the model is shown for one past message: by the message's value (a frozen
    message is hashable), so each turn renders only the messages new since the last;
    a message holding an unhashable value (a tool result no JSON made) is rendered anew."""
    try:
        return _rendered_by_value(message)
    except TypeError:
        return _render(message)


def _render(message: Message) -> tuple[LLMMessage, ...]:
    if message.role == "user":
        return (LLMMessage(role="user", content=message.text),)
    return tuple(_assistant_messages(message))


_rendered_by_value = lru_cache(maxsize=4096)(_render)


def build_messages(
    history: Sequence[Message],
    spec: AgentSpec,
    *,
    keep_turns: int,
    recap: bool,
    reminder: bool,
) -> tuple[list[LLMMessage], list[int]]:
    """The conversation sent to the model for the last user message of ``history``.

    Args:
        history: The conversation so far, the message to answer last.
        spec: The agent's spec (its rules and recap keywords).
        keep_turns: The sliding window in user turns (0: all).
        recap: Whether to append the recap of the user's constraints.
        reminder: Whether to append the rules again.

    Returns:
        The messages and the 1-based user turns they include.
    """
    kept, seen = window(history, keep_turns)
    out: list[LLMMessage] = []
    for message in kept[:-1]:
        out.extend(_rendered(message))
    current = kept[-1].text if kept else ""
    sections = [current]
    if recap:
        lines = recap_lines(history, spec.recap_keywords)
        if lines:
            sections.append(RECAP_HEADER + "\n" + "\n".join(lines))
    if reminder and spec.rules:
        sections.append(REMINDER_HEADER + "\n" + "\n".join(f"- {r}" for r in spec.rules))
    out.append(LLMMessage(role="user", content="\n\n---\n".join(sections)))
    return out, seen

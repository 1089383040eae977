"""Caps on what a target returns: a runaway reply is cut, and the cut is said.

A target answering 10 MB per turn would otherwise put every byte into
``sessions.jsonl``, the history sent back to it, and every report. The suite's
``limits`` (``OutputLimits``) bound the reply text, each tool call's arguments
and result, and the reply's ``meta``. Each cut is listed, with the field and
its original size, in the session's ``meta["truncated"]``; a cut text ends with
a marker saying so, so the transcript viewer shows it where it happened.
"""

from __future__ import annotations

import json
from typing import Any

from simlab.core import AgentReply, ToolCall, freeze
from simlab.spec import OutputLimits

TRUNCATED_KEY = "simlab_truncated"
"""The key of the object that stands in for cut tool arguments, results or meta."""

MAX_NESTING = 64
"""Levels of nesting a tool call's arguments or result, or a reply's meta, may have;
deeper, the value is cut like an oversized one (past ``core.freeze``'s limit, it is
refused: the session's agent error). A record is read back by a JSON parser that
refuses about 200 levels in all (the record's own take about ten), and no tool's
real arguments come near this."""


def cap_reply(
    reply: AgentReply, limits: OutputLimits, turn: int
) -> tuple[AgentReply, list[dict[str, Any]]]:
    """``reply`` within ``limits``, and the cuts made (``[]`` when none was needed).

    Each cut is ``{"turn", "field", "chars", "kept"}``: ``field`` is ``text``,
    ``meta`` or ``tool_calls[i].args|result|error``; ``chars`` its original size.
    """
    if len(reply.text) <= limits.reply_chars and _all_within(reply, limits):
        return reply, []
    cuts: list[dict[str, Any]] = []

    def cut(field: str, chars: int, kept: int) -> None:
        cuts.append({"turn": turn, "field": field, "chars": chars, "kept": kept})

    update: dict[str, Any] = {}
    if len(reply.text) > limits.reply_chars:
        update["text"] = _cut_text(reply.text, limits.reply_chars, "reply_chars")
        cut("text", len(reply.text), limits.reply_chars)
    if reply.meta:
        meta, size = _cap_json(reply.meta, limits.meta_chars, "meta_chars", excerpt=False)
        if size is not None:
            update["meta"] = meta
            cut("meta", size, 0)
    calls = [_cap_call(i, c, limits, cut) for i, c in enumerate(reply.tool_calls)]
    if any(new is not old for new, old in zip(calls, reply.tool_calls, strict=True)):
        update["tool_calls"] = tuple(calls)
    if not update:
        return reply, []
    return reply.model_copy(update=update), cuts


def _all_within(reply: AgentReply, limits: OutputLimits) -> bool:
    """Whether no value of ``reply`` can be past its limit, by one cheap measure.

    The JSON of the meta and every call's args, result and error together as one list
    is at least as long as each value's own measure (the JSON of a value, the length of
    a string); within the smallest of the limits, none is cut. When it says no, each
    value is measured. A reply is measured every time: an agent may grow a result it
    returned before.
    """
    if _nested_past(reply.meta, MAX_NESTING) or any(
        _nested_past(c.args, MAX_NESTING) or _nested_past(c.result, MAX_NESTING)
        for c in reply.tool_calls
    ):
        return False
    smallest = min(limits.meta_chars, limits.tool_args_chars, limits.tool_result_chars)
    values: list[Any] = [reply.meta]
    for call in reply.tool_calls:
        values += (call.args, call.result, call.error)
    try:
        return len(_MEASURE.encode(values)) <= smallest
    except Exception:  # measured one by one, as before, to fail as before
        return False


def _cap_call(i: int, call: ToolCall, limits: OutputLimits, cut: Any) -> ToolCall:
    update: dict[str, Any] = {}
    args, size = _cap_json(call.args, limits.tool_args_chars, "tool_args_chars")
    if size is not None:
        update["args"] = args
        cut(f"tool_calls[{i}].args", size, limits.tool_args_chars)
    result, size = _cap_json(call.result, limits.tool_result_chars, "tool_result_chars")
    if size is not None:
        update["result"] = result
        cut(f"tool_calls[{i}].result", size, limits.tool_result_chars)
    if call.error is not None and len(call.error) > limits.tool_result_chars:
        update["error"] = _cut_text(call.error, limits.tool_result_chars, "tool_result_chars")
        cut(f"tool_calls[{i}].error", len(call.error), limits.tool_result_chars)
    return call.model_copy(update=update) if update else call


def _cap_json(
    value: Any, limit: int, setting: str, *, excerpt: bool = True
) -> tuple[Any, int | None]:
    """``value``, or a stand-in holding the start of its JSON, and its size if cut."""
    if value is None or isinstance(value, bool | int | float):
        return value, None
    if isinstance(value, str):
        if len(value) <= limit:
            return value, None
        return _cut_text(value, limit, setting), len(value)
    if _nested_past(value, MAX_NESTING):
        # deeper still than any model takes (``core.freeze``): refused, as validating
        # a reply with it refuses it (a ValueError: the session's agent error)
        freeze(value)
        text = _flat_json(value)
        nested: dict[str, Any] = {
            "chars": len(text),
            "limit": f"nested past {MAX_NESTING} levels",
        }
        if excerpt:
            nested["excerpt"] = text[:limit]
        return {TRUNCATED_KEY: nested}, len(text)
    text = _json_text(value)
    if len(text) <= limit:
        return value, None
    stand_in: dict[str, Any] = {"chars": len(text), "limit": f"limits.{setting}={limit}"}
    if excerpt:
        stand_in["excerpt"] = text[:limit]
    return freeze({TRUNCATED_KEY: stand_in}), len(text)  # frozen, as the model's fields


# ``json.dumps(value, ensure_ascii=False, default=str)``, its encoder configured once:
# every tool call and reply meta of every turn is measured.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
# The same JSON, for ``_all_within``'s measure only: no circular-reference bookkeeping
# (a circular value fails, and is then measured one value at a time by ``_ENCODER``).
_MEASURE = json.JSONEncoder(ensure_ascii=False, default=str, check_circular=False)


def _json_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, default=str)`` for a non-string ``value``."""
    return _ENCODER.encode(value)


def _cut_text(text: str, limit: int, setting: str) -> str:
    return (
        f"{text[:limit]}\n[simlab cut this here: {len(text):,} characters, the first "
        f"{limit:,} kept (limits.{setting})]"
    )


def _nested_past(value: Any, levels: int) -> bool:
    """Whether ``value`` holds lists or mappings more than ``levels`` deep (walked
    with a stack, not recursion: it may be nested thousands of levels)."""
    if not isinstance(value, dict | list | tuple):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > levels:
            return True
        for item in node.values() if isinstance(node, dict) else node:
            if isinstance(item, dict | list | tuple):
                stack.append((item, depth + 1))
    return False


def _flat_json(value: Any) -> str:
    """``value`` as compact JSON (``ensure_ascii=False``, ``default=str``), written with
    a stack, not recursion, for a value nested too deep for ``json.dumps``."""
    out: list[str] = []
    # a frame: the items of a list or mapping still to write, and whether it is a mapping
    stack: list[tuple[Any, bool]] = []

    def start(item: Any) -> None:
        if isinstance(item, dict):
            out.append("{")
            stack.append((iter(item.items()), True))
        elif isinstance(item, list | tuple):
            out.append("[")
            stack.append((iter(item), False))
        else:
            out.append(json.dumps(item, ensure_ascii=False, default=str))

    start(value)
    first = True
    while stack:
        items, is_map = stack[-1]
        entry: Any = next(items, _END)
        if entry is _END:
            stack.pop()
            out.append("}" if is_map else "]")
            first = False
            continue
        if not first:
            out.append(", ")
        if is_map:
            key: Any = entry[0]
            entry = entry[1]
            out.append(json.dumps(key if isinstance(key, str) else str(key), ensure_ascii=False))
            out.append(": ")
        first = True
        depth = len(stack)
        start(entry)
        if len(stack) == depth:  # a scalar: the next item follows it
            first = False
    return "".join(out)


_END = object()

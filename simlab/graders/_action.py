"""Does a final action satisfy the user's constraints? Shared by graders and simulators.

A goal's final action is its ``final_tool`` call. Its *view* is the call's
arguments overlaid with its result (when the result is a mapping), so a
constraint can name either (``quantity`` from the args, ``total_price`` from
the result).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from simlab.core import ToolCall, Transcript
from simlab.spec import Constraint, FactValue, Goal


def action_view(call: ToolCall) -> dict[str, Any]:
    """The fields a constraint can check on this call."""
    view = dict(call.args)
    result = call.result
    if type(result) is dict or isinstance(result, Mapping):  # dict: no ABC check
        view.update(result)
    return view


def final_action(goal: Goal, transcript: Transcript) -> tuple[int, ToolCall] | None:
    """The last successful ``final_tool`` call and the user turn it answered."""
    return final_call(goal.final_tool, transcript.tool_calls())


def final_call(tool: str, calls: Sequence[tuple[int, ToolCall]]) -> tuple[int, ToolCall] | None:
    """The last successful call of ``tool`` among ``calls`` (user turn, call), as
    ``final_action`` finds it; graders pass the context's cached tool calls."""
    for turn, call in reversed(calls):
        if call.name == tool and call.error is None:
            return turn, call
    return None


def satisfies(constraint: Constraint, view: Mapping[str, Any], wanted: FactValue) -> bool:
    """Whether ``view[constraint.field]`` stands in ``constraint.op`` to ``wanted``.

    Numbers compare as numbers; other values as case-insensitive strings (ISO
    dates and zero-padded ``HH:MM`` times order correctly as strings).
    """
    field = constraint.field
    return field in view and _holds(constraint.op, view[field], wanted)


def same_value(got: Any, wanted: FactValue) -> bool:
    """Whether ``got`` is ``wanted`` as ``satisfies`` compares with ``eq``."""
    return _holds("eq", got, wanted)


def violations(goal: Goal, call: ToolCall, wants: Mapping[str, FactValue]) -> list[Constraint]:
    """The goal's constraints that ``call`` breaks, judged against ``wants``.

    Constraints on facts missing from ``wants`` are not judged.
    """
    args, result = call.args, call.result
    if not (type(result) is dict or isinstance(result, Mapping)):
        result = _NO_RESULT
    broken: list[Constraint] = []
    for c in goal.constraints:  # the view's fields read where they are
        fact, field, op = c.fact, c.field, c.op
        if fact not in wants:
            continue
        if field in result:  # the result's field overlays the argument of the same name
            got = result[field]
        elif field in args:
            got = args[field]
        else:
            broken.append(c)
            continue
        wanted = wants[fact]
        if type(got) in _CACHED_TYPES and type(wanted) in _CACHED_TYPES:  # _holds, inlined
            if not _compare_cached(op, got, wanted):
                broken.append(c)
        elif not _compare(op, got, wanted):
            broken.append(c)
    return broken


_NO_RESULT: Mapping[str, Any] = {}


def _holds(op: str, got: Any, wanted: Any) -> bool:
    """Whether ``got`` stands in ``op`` to ``wanted`` (``satisfies``'s comparison)."""
    if type(got) in _CACHED_TYPES and type(wanted) in _CACHED_TYPES:
        return _compare_cached(op, got, wanted)
    return _compare(op, got, wanted)


def _compare(op: str, got: Any, wanted: Any) -> bool:
    a, b = _pair(got, wanted)
    if op == "eq":
        return a == b
    if op == "le":
        return a <= b  # type: ignore[operator]
    return a >= b  # type: ignore[operator]


# The scripted user judges every final action it sees and the graders judge it again: the
# same few (value, wanted) pairs come back thousands of times a run, so their verdicts are
# cached by value. Only exact types whose equal values compare alike are cached, and the
# cache is typed, so 1, True and "1" stay apart.
_CACHED_TYPES = frozenset({str, int, bool, type(None)})
_compare_cached = lru_cache(maxsize=8192, typed=True)(_compare)


def _pair(got: Any, wanted: Any) -> tuple[float | str, float | str]:
    a, b = _comparable(got), _comparable(wanted)
    if type(a) is not type(b):
        return str(got).strip().lower(), str(wanted).strip().lower()
    return a, b


def _comparable(value: Any) -> float | str:
    kind = type(value)  # the common exact types first: one type() instead of isinstance chains
    if kind is str:
        return _comparable_str(value)
    if kind is int or kind is float:
        return float(value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return _comparable_str(value)
    return str(value).strip().lower()


# Simulators judge every final action they see: the same few strings (dates, codes,
# times) come back again and again, and a failed float() costs an exception.
@lru_cache(maxsize=4096)
def _comparable_str(value: str) -> float | str:
    try:
        return float(value)
    except ValueError:
        return value.strip().lower()

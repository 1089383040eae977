"""Tool calls their agent hands out again and again without ever changing them.

An agent may share one ``ToolCall`` between turns or sessions (the reference agent
answers each distinct fixture call with one object). Marked read-only, such a call
has what is found in it remembered by the object: the engine measures it once for
the output caps, the scripted user judges it once while its wants stand. A call not
marked is read afresh each time, so an agent that changes a call it already returned
(a result it keeps appending to) is capped and judged on what the call holds now.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from simlab.core._transcript import ToolCall

T = TypeVar("T")


class _Mark:
    """A marked call's entry: a weak reference to it, and what was found in it."""

    __slots__ = ("call", "found")

    def __init__(self, call: ToolCall) -> None:
        self.call = weakref.ref(call, _forget(id(call)))
        # name -> (args, result, error, value): a value holds while the fields are those objects
        self.found: dict[str, tuple[Any, Any, str | None, Any]] = {}


# id -> the marked call's entry: an entry goes when its call is collected, and its call
# is checked with ``is`` (an id is reused once its object is gone)
_marked: dict[int, _Mark] = {}


def mark_read_only(call: ToolCall) -> ToolCall:
    """Promise that ``call`` is never changed in place from now on; ``call`` itself."""
    if not is_read_only(call):
        _marked[id(call)] = _Mark(call)
    return call


def is_read_only(call: ToolCall) -> bool:
    """Whether ``call`` was marked with ``mark_read_only``."""
    return _mark_of(call) is not None


def remembered(call: ToolCall, name: str, compute: Callable[[ToolCall], T]) -> T:
    """``compute(call)``, found once per read-only call and ``name``, anew for any other.

    A read-only call keeps the value while its ``args``, ``result`` and ``error`` are
    the objects they were: a field set anew (not a change in place) is read anew.
    """
    mark = _mark_of(call)
    if mark is None:
        return compute(call)
    args, result, error = call.args, call.result, call.error
    known = mark.found.get(name)
    if known is not None and known[0] is args and known[1] is result and known[2] is error:
        value: T = known[3]
        return value
    value = compute(call)
    mark.found[name] = (args, result, error, value)
    return value


def _mark_of(call: ToolCall) -> _Mark | None:
    mark = _marked.get(id(call))
    return mark if mark is not None and mark.call() is call else None


def _forget(key: int) -> Callable[[object], None]:
    def forget(_: object) -> None:
        _marked.pop(key, None)

    return forget

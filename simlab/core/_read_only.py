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

from simlab.core._transcript import ToolCall

# id -> a weak reference to the marked call: an entry goes when its call is collected,
# and is checked with ``is`` (an id is reused once its object is gone)
_marked: dict[int, weakref.ref[ToolCall]] = {}


def mark_read_only(call: ToolCall) -> ToolCall:
    """Promise that ``call`` is never changed in place from now on; ``call`` itself."""
    _marked[id(call)] = weakref.ref(call, _forget(id(call)))
    return call


def is_read_only(call: ToolCall) -> bool:
    """Whether ``call`` was marked with ``mark_read_only``."""
    ref = _marked.get(id(call))
    return ref is not None and ref() is call


def _forget(key: int) -> Callable[[object], None]:
    def forget(_: object) -> None:
        _marked.pop(key, None)

    return forget

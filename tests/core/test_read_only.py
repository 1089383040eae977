"""mark_read_only: a call's promise, held by the object itself and gone with it."""

from __future__ import annotations

import gc

from simlab.core import ToolCall, _read_only, is_read_only, mark_read_only


def test_only_the_marked_object_is_read_only() -> None:
    call = ToolCall(name="f", args={"a": 1})
    twin = ToolCall(name="f", args={"a": 1})  # equal, another object
    assert mark_read_only(call) is call
    assert is_read_only(call)
    assert not is_read_only(twin)
    assert not is_read_only(call.model_copy())  # a copy promises nothing


def test_a_mark_goes_with_its_call_and_does_not_pass_to_the_next_object_at_its_address() -> None:
    before = len(_read_only._marked)
    calls = [mark_read_only(ToolCall(name="f", args={"i": i})) for i in range(100)]
    assert len(_read_only._marked) == before + 100
    del calls
    gc.collect()
    assert len(_read_only._marked) == before
    # new objects, some at the addresses of the collected ones: none is marked
    assert not any(is_read_only(ToolCall(name="f", args={"i": i})) for i in range(100))

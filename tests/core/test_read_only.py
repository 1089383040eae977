"""mark_read_only: a call's promise, held by the object itself and gone with it."""

from __future__ import annotations

import gc

import pytest
from pydantic import ValidationError

from simlab.core import ToolCall, _read_only, freeze, is_read_only, mark_read_only, remembered


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


def test_remembered_is_found_once_per_read_only_call_and_anew_for_another() -> None:
    seen: list[object] = []

    def size(call: ToolCall) -> int:
        seen.append(call)
        return len(call.result["r"])

    shared = mark_read_only(ToolCall(name="f", result={"r": "xx"}))
    assert [remembered(shared, "size", size) for _ in range(3)] == [2, 2, 2]
    assert len(seen) == 1
    assert remembered(shared, "other", lambda c: "another name") == "another name"
    with pytest.raises(ValidationError, match="frozen"):  # a call is never changed in place
        shared.result = {"r": "xxxx"}
    changed = shared.model_copy(update={"result": freeze({"r": "xxxx"})})
    assert remembered(changed, "size", size) == 4 and len(seen) == 2  # a copy: not marked
    assert remembered(shared, "size", size) == 2 and len(seen) == 2
    loose = ToolCall(name="f", result={"r": "xx"})
    remembered(loose, "size", size)
    remembered(loose, "size", size)
    assert len(seen) == 4  # not marked: computed every time
    mark_read_only(shared)  # marked again: what was found stays
    assert remembered(shared, "size", size) == 2 and len(seen) == 4

"""freeze: JSON-shaped values made deeply immutable, walked without recursion."""

from __future__ import annotations

import json
from typing import Any

import pytest
from frozendict import frozendict
from pydantic import BaseModel, ConfigDict, Field

from simlab.core import FrozenDict, FrozenJSON, FrozenJSONDict, ToolCall, freeze
from simlab.core._frozen import MAX_DEPTH


def _nested(depth: int) -> Any:
    """``depth`` containers, alternately lists and dicts, around a 0."""
    value: Any = 0
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def test_lists_become_tuples_and_mappings_frozendicts_at_every_level() -> None:
    value = {"a": [1, {"b": [2, 3], "c": {"d": []}}], "e": (4, [5]), "f": "text"}
    frozen = freeze(value)
    assert frozen == {"a": (1, {"b": (2, 3), "c": {"d": ()}}), "e": (4, (5,)), "f": "text"}
    assert type(frozen) is frozendict
    assert type(frozen["a"]) is tuple and type(frozen["a"][1]) is frozendict
    assert type(frozen["a"][1]["c"]["d"]) is tuple and type(frozen["e"][1]) is tuple
    assert list(frozen) == ["a", "e", "f"]  # the keys' order is kept
    with pytest.raises(TypeError):
        frozen["a"][1]["b"] = ()
    assert value["a"][1]["b"] == [2, 3]  # the original is left as it was


def test_scalars_come_back_as_they_are() -> None:
    for scalar in (None, True, 0, -0.0, 1.5, "", "text"):
        assert freeze(scalar) is scalar
    assert freeze([]) == () and freeze({}) == frozendict()


def test_a_frozen_container_of_scalars_comes_back_as_it_is_and_one_holding_lists_anew() -> None:
    row = frozendict({"id": "VJ1", "seats": 3})
    pair = ("HAN", "DAD")
    assert freeze(row) is row and freeze(pair) is pair
    assert freeze([row, pair]) == (row, pair) and freeze([row])[0] is row
    loose = frozendict({"legs": ["HAN", "DAD"]})  # a frozendict may hold a list
    assert freeze(loose) == {"legs": ("HAN", "DAD")} and freeze(loose) is not loose


def test_nesting_up_to_the_limit_is_frozen_and_past_it_is_a_value_error() -> None:
    deep = freeze(_nested(MAX_DEPTH))
    inner = deep
    for _ in range(MAX_DEPTH):
        assert isinstance(inner, frozendict | tuple)
        inner = inner["k"] if isinstance(inner, frozendict) else inner[0]
    assert inner == 0
    with pytest.raises(ValueError, match=f"deeper than {MAX_DEPTH}"):
        freeze(_nested(MAX_DEPTH + 1))


def test_a_value_far_past_the_recursion_limit_is_a_value_error_not_a_recursion_error() -> None:
    with pytest.raises(ValueError, match="nested deeper"):
        freeze(_nested(100_000))


def test_a_model_field_past_the_limit_is_a_validation_error() -> None:
    with pytest.raises(ValueError, match="nested deeper"):
        ToolCall(name="f", result=_nested(MAX_DEPTH + 5))


def test_a_frozen_tool_call_round_trips_through_json() -> None:
    call = ToolCall(
        name="search",
        args={"route": ["HAN", "DAD"], "when": {"date": "2026-12-20", "flex": [0, 1]}},
        result=[{"id": "VJ1", "legs": [{"dep": "10:15"}]}, {"id": "VJ2", "legs": []}],
        error=None,
    )
    text = call.model_dump_json()
    assert json.loads(text)["result"][0]["legs"] == [{"dep": "10:15"}]  # JSON lists, objects
    back = ToolCall.model_validate_json(text)
    assert back == call
    assert type(back.args) is frozendict and type(back.result) is tuple
    assert back.model_dump_json() == text


class _Holder(BaseModel):
    model_config = ConfigDict(frozen=True)

    json_value: FrozenJSON = None
    meta: FrozenJSONDict = Field(default_factory=frozendict)
    calls: FrozenDict[str, ToolCall] = Field(default_factory=frozendict)


def test_the_field_types_freeze_what_they_hold() -> None:
    held = _Holder(json_value=[{"a": [1]}], meta={"m": {"n": [2]}}, calls={"c": {"name": "f"}})
    assert held.json_value == ({"a": (1,)},) and type(held.json_value[0]) is frozendict
    assert type(held.meta) is frozendict and held.meta["m"]["n"] == (2,)
    assert type(held.calls) is frozendict and held.calls["c"] == ToolCall(name="f")
    with pytest.raises(TypeError):
        held.calls["d"] = ToolCall(name="g")  # type: ignore[index]

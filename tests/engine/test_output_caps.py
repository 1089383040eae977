"""cap_reply: what is cut, what is kept, and what is said about it."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

import simlab.engine._output_caps as output_caps
from simlab.core import AgentReply, ToolCall
from simlab.engine._output_caps import MAX_NESTING, TRUNCATED_KEY, cap_reply
from simlab.spec import OutputLimits

LIMITS = OutputLimits(reply_chars=100, tool_args_chars=100, tool_result_chars=100, meta_chars=100)


def test_a_reply_within_the_limits_is_the_same_object() -> None:
    reply = AgentReply(
        text="x" * 100,
        tool_calls=[ToolCall(name="t", args={"a": 1}, result="r" * 100)],
        meta={"k": "v"},
    )
    assert cap_reply(reply, LIMITS, 1) == (reply, [])
    assert cap_reply(reply, LIMITS, 1)[0] is reply


def test_each_field_past_its_limit_is_cut_and_listed_with_its_size() -> None:
    reply = AgentReply(
        text="x" * 101,
        tool_calls=[
            ToolCall(name="ok", args={"a": 1}),
            ToolCall(name="big", args={"q": "y" * 200}, result="z" * 150, error="e" * 300),
        ],
        meta={"blob": "m" * 500},
    )
    capped, cuts = cap_reply(reply, LIMITS, 3)
    assert cuts == [
        {"turn": 3, "field": "text", "chars": 101, "kept": 100},
        {"turn": 3, "field": "meta", "chars": 512, "kept": 0},
        {"turn": 3, "field": "tool_calls[1].args", "chars": 209, "kept": 100},
        {"turn": 3, "field": "tool_calls[1].result", "chars": 150, "kept": 100},
        {"turn": 3, "field": "tool_calls[1].error", "chars": 300, "kept": 100},
    ]
    assert capped.text.startswith("x" * 100)
    assert capped.text.endswith(
        "[simlab cut this here: 101 characters, the first 100 kept (limits.reply_chars)]"
    )
    assert capped.meta == {TRUNCATED_KEY: {"chars": 512, "limit": "limits.meta_chars=100"}}
    assert capped.tool_calls[0] is reply.tool_calls[0]  # untouched calls are kept as they are
    stand_in = capped.tool_calls[1].args[TRUNCATED_KEY]
    assert stand_in["chars"] == 209 and stand_in["excerpt"] == '{"q": "' + "y" * 93
    assert capped.tool_calls[1].result.startswith("z" * 100)
    assert "300 characters" in (capped.tool_calls[1].error or "")
    assert reply.text == "x" * 101  # the original is not changed


def test_the_cheap_measure_of_a_reply_cuts_exactly_what_measuring_each_value_cuts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # around each limit: raw strings (measured by length), escaped ones (JSON longer),
    # nested values, errors; the shortcut must never skip a cut the exact path makes
    values: list[object] = [
        None,
        7,
        "s" * 99,
        "s" * 100,
        "s" * 101,
        "\x01" * 30,
        {"q": "y" * 88},
        {"q": "y" * 89},
        {"q": "y" * 95},
        [1.5, {"k": ["é" * 40]}],
        {"d": date(2026, 1, 2)},
    ]
    replies = [
        AgentReply(
            text="t" * n,
            tool_calls=[ToolCall(name="f", args=a, result=r, error=e) for a, r, e in calls],
            meta=meta,
        )
        for n in (99, 100, 101)
        for meta in ({}, {"m": "z" * 80}, {"m": "z" * 120})
        for calls in (
            [],
            [({}, v, None) for v in values],
            [(v, None, None) for v in values if isinstance(v, dict)],
            [({}, None, "e" * 100), ({}, None, "e" * 101)],
        )
    ]
    fast = [cap_reply(r, LIMITS, 2) for r in replies]
    monkeypatch.setattr(output_caps, "_all_within", lambda reply, limits: False)
    exact = [cap_reply(r, LIMITS, 2) for r in replies]
    assert [(r.model_dump(mode="json"), c) for r, c in fast] == [
        (r.model_dump(mode="json"), c) for r, c in exact
    ]
    assert any(c for _, c in exact) and any(not c for _, c in exact)
    fits = AgentReply(text="ok", tool_calls=[ToolCall(name="f", args={"a": 1})])
    assert cap_reply(fits, LIMITS, 1)[0] is fits  # the shortcut hands back the reply itself


def test_a_call_cannot_grow_its_result_after_it_was_returned() -> None:
    # a result is frozen: an agent that wants a longer one returns a new call, capped anew
    call = ToolCall(name="log", result={"lines": ""})
    reply = AgentReply(text="ok", tool_calls=[call])
    assert cap_reply(reply, LIMITS, 1) == (reply, [])
    with pytest.raises(TypeError):
        call.result["lines"] = "x" * 500
    grown = ToolCall(name="log", result={"lines": "x" * 500})
    capped, cuts = cap_reply(AgentReply(text="ok", tool_calls=[grown]), LIMITS, 2)
    assert [c["field"] for c in cuts] == ["tool_calls[0].result"]
    assert TRUNCATED_KEY in capped.tool_calls[0].result


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def test_a_value_nested_past_every_limit_is_refused_without_recursion() -> None:
    deep = _nested(5000)  # far past the interpreter's recursion limit
    # a frozen call refuses it as it is made (core.freeze walks it without recursion),
    # so no reply the caps see holds it; the engine records the agent's error
    with pytest.raises(ValueError, match="nested deeper than"):
        ToolCall(name="t", args={"a": deep})


def test_a_value_nested_past_the_limit_is_cut_without_recursion() -> None:
    deep = _nested(200)  # deeper than sessions.jsonl's reader takes
    reply = AgentReply(
        text="t",
        tool_calls=[ToolCall(name="t", args={"a": deep}, result=_nested(65))],
        meta={"m": _nested(70)},
    )
    capped, cuts = cap_reply(reply, OutputLimits(), 2)
    assert [c["field"] for c in cuts] == ["meta", "tool_calls[0].args", "tool_calls[0].result"]
    stand_in = capped.tool_calls[0].args[TRUNCATED_KEY]
    assert stand_in["limit"] == f"nested past {MAX_NESTING} levels"
    assert stand_in["chars"] == len('{"a": ') + 200 * 2 + 1 + 1
    assert stand_in["excerpt"].startswith('{"a": [[[[')
    assert cuts[1] == {"turn": 2, "field": "tool_calls[0].args", "chars": 408, "kept": 20_000}


def test_a_value_nested_to_the_limit_is_kept() -> None:
    reply = AgentReply(text="t", tool_calls=[ToolCall(name="t", args={"a": _nested(63)})])
    assert cap_reply(reply, OutputLimits(), 1) == (reply, [])

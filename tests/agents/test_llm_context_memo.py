"""The LLM agent's memo of rendered past messages: same messages, each rendered once."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from simlab.agents._llm_context import MessageMemo, build_messages
from simlab.core import Message, ToolCall
from simlab.spec import AgentSpec

SPEC = AgentSpec.model_validate({"name": "memo", "system_prompt": "Help.", "rules": ["Be kind."]})
CALL = ToolCall(name="lookup", args={"ref": "A1"}, result={"status": "open"})


def _render(history: list[Message], memo: MessageMemo | None) -> list[str]:
    messages, _ = build_messages(history, SPEC, keep_turns=0, recap=True, reminder=True, memo=memo)
    return [f"{m.role}: {m.content}" for m in messages]


def test_a_memo_changes_nothing_and_renders_each_past_message_once() -> None:
    history = [
        Message(role="user", text="Where is order A1?"),
        Message(role="assistant", text="It is open.", tool_calls=[CALL]),
        Message(role="user", text="Thanks, and A2?"),
    ]
    memo: MessageMemo = {}
    first = _render(history, memo)
    assert first == _render(history, None)
    history += [Message(role="assistant", text="A2 too."), Message(role="user", text="Bye")]
    second = _render(history, memo)
    assert second == _render(history, None)
    assert len(memo) == 4  # the four past messages, each rendered once
    cached, _ = build_messages(history, SPEC, keep_turns=0, recap=True, reminder=True, memo=memo)
    again, _ = build_messages(history, SPEC, keep_turns=0, recap=True, reminder=True, memo=memo)
    assert all(a is b for a, b in zip(cached[:-1], again[:-1], strict=True))


def test_a_past_message_cannot_be_edited_in_place_and_a_replaced_one_is_rendered_anew() -> None:
    history = [
        Message(role="user", text="Where is order A1?"),
        Message(role="assistant", text="It is open.", tool_calls=[CALL]),
        Message(role="user", text="And A2?"),
    ]
    memo: MessageMemo = {}
    _render(history, memo)
    with pytest.raises(ValidationError, match="frozen"):
        history[0].text = "Where is order B7?"
    history[0] = history[0].model_copy(update={"text": "Where is order B7?"})
    history[1] = Message(
        role="assistant",
        text="It is open.",
        tool_calls=[CALL, ToolCall(name="lookup", args={"ref": "B7"}, result={})],
    )
    assert _render(history, memo) == _render(history, None)
    assert "B7" in _render(history, memo)[0]

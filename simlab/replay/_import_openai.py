"""OpenAI chat-format messages: system, user, assistant (with ``tool_calls``) and tool."""

from __future__ import annotations

from typing import Any

from simlab.core import ToolCall
from simlab.replay._log import (
    ImportRecordError,
    LoggedCall,
    LogMessage,
    Role,
    kind_of,
    tool_arguments,
)

_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}


def openai_messages(raw: Any) -> list[LogMessage]:
    """Read a list of OpenAI chat-completions messages.

    Content may be a string, null (an assistant message that only calls tools)
    or a list of content parts, whose text parts are joined. Assistant
    ``tool_calls`` carry ``function.name`` and JSON ``function.arguments``; a
    ``tool`` message's ``tool_call_id`` says which call it answers.

    Raises:
        ImportRecordError: Naming the message index and what is wrong.
    """
    if not isinstance(raw, list):
        raise ImportRecordError(f"messages must be a list, got {kind_of(raw)}")
    return [_message(i, m) for i, m in enumerate(raw)]


def _message(i: int, m: Any) -> LogMessage:
    where = f"message {i}"
    if not isinstance(m, dict):
        raise ImportRecordError(f"{where} must be an object, got {kind_of(m)}")
    role = _ROLES.get(str(m.get("role")))
    if role is None:
        raise ImportRecordError(
            f"{where}: role {m.get('role')!r} is not one of {sorted(set(_ROLES))}"
        )
    msg = LogMessage(role=role, text=content_text(m.get("content"), where))
    if role == "assistant":
        msg.calls = [_call(f"{where} tool_calls[{j}]", c) for j, c in enumerate(_list(m, where))]
        if m.get("function_call"):  # the pre-tools API
            msg.calls.append(_function(f"{where} function_call", m["function_call"], None))
    elif role == "tool":
        call_id = m.get("tool_call_id")
        if call_id is not None and (
            isinstance(call_id, bool) or not isinstance(call_id, str | int)
        ):
            raise ImportRecordError(
                f"{where}: tool_call_id must be a string, got {kind_of(call_id)}"
            )
        msg.call_id = None if call_id is None else str(call_id)
        msg.name = m.get("name")
    return msg


def _list(m: dict[str, Any], where: str) -> list[Any]:
    calls = m.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ImportRecordError(f"{where}: tool_calls must be a list, got {kind_of(calls)}")
    return calls


def _call(where: str, c: Any) -> LoggedCall:
    if not isinstance(c, dict) or not isinstance(c.get("function"), dict):
        raise ImportRecordError(f"{where} must be an object with a 'function' object")
    return _function(where, c["function"], c.get("id"))


def _function(where: str, f: Any, call_id: Any) -> LoggedCall:
    if not isinstance(f, dict) or not isinstance(f.get("name"), str) or not f["name"]:
        raise ImportRecordError(f"{where}: the function has no name")
    args = tool_arguments(f.get("arguments"), where)
    return LoggedCall(ToolCall(name=f["name"], args=args), str(call_id) if call_id else None)


def content_text(content: Any, where: str) -> str:
    """Message content as text: a string, null, or a list of parts with text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    raise ImportRecordError(f"{where}: content must be a string or a list, got {kind_of(content)}")

"""Anthropic Messages format: content blocks of text, tool_use and tool_result."""

from __future__ import annotations

import json
from typing import Any

from simlab.core import ToolCall
from simlab.replay._log import ImportRecordError, LoggedCall, LogMessage, kind_of


def anthropic_messages(raw: Any, system: Any = None) -> list[LogMessage]:
    """Read a list of Anthropic Messages API messages (and the request's ``system``).

    An assistant message's ``tool_use`` blocks become tool calls; a user
    message's ``tool_result`` blocks answer them by ``tool_use_id`` and are not
    a user turn (a user message with only tool results opens no turn).

    Raises:
        ImportRecordError: Naming the message and block index and what is wrong.
    """
    if not isinstance(raw, list):
        raise ImportRecordError(f"messages must be a list, got {kind_of(raw)}")
    out: list[LogMessage] = []
    if system:
        out.append(LogMessage(role="system", text=_system_text(system)))
    for i, m in enumerate(raw):
        where = f"message {i}"
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            raise ImportRecordError(f"{where}: must be an object with role 'user' or 'assistant'")
        blocks = _blocks(m.get("content"), where)
        if m["role"] == "assistant":
            out.append(_assistant(blocks, where))
        else:
            out.extend(_user(blocks, where))
    return out


def _system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return str(system)


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise ImportRecordError(f"{where}: content must be a string or a list of blocks")
    for j, b in enumerate(content):
        if not isinstance(b, dict) or not isinstance(b.get("type"), str):
            raise ImportRecordError(f"{where} block {j}: must be an object with a 'type'")
    return content


def _assistant(blocks: list[dict[str, Any]], where: str) -> LogMessage:
    msg = LogMessage(role="assistant")
    texts = []
    for j, b in enumerate(blocks):
        if b["type"] == "text":
            texts.append(str(b.get("text", "")))
        elif b["type"] == "tool_use":
            name, args = b.get("name"), b.get("input", {})
            if not isinstance(name, str) or not name:
                raise ImportRecordError(f"{where} block {j}: tool_use has no name")
            if not isinstance(args, dict):
                raise ImportRecordError(f"{where} block {j}: tool_use input must be an object")
            call_id = b.get("id")
            msg.calls.append(
                LoggedCall(ToolCall(name=name, args=args), str(call_id) if call_id else None)
            )
        # thinking and other block types carry no conversation content
    msg.text = "\n".join(t for t in texts if t)
    return msg


def _user(blocks: list[dict[str, Any]], where: str) -> list[LogMessage]:
    out: list[LogMessage] = []
    texts = []
    for j, b in enumerate(blocks):
        if b["type"] == "text":
            texts.append(str(b.get("text", "")))
        elif b["type"] == "tool_result":
            if not b.get("tool_use_id"):
                raise ImportRecordError(f"{where} block {j}: tool_result has no tool_use_id")
            out.append(
                LogMessage(
                    role="tool",
                    text=_result_text(b.get("content")),
                    call_id=str(b["tool_use_id"]),
                    is_error=bool(b.get("is_error", False)),
                )
            )
    if texts:
        out.append(LogMessage(role="user", text="\n".join(texts)))
    return out


def _result_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return json.dumps(content, ensure_ascii=False)

"""A logged conversation in one shape, whatever its format, and its transcript.

Importers turn each format's messages into ``LogMessage``s; ``build_transcript``
then folds them into simlab turns: a user message opens a turn, every
assistant message up to the next user message is that turn's agent reply, and
tool results are matched to their calls by id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.replay._record_shape import decode_embedded

Role = Literal["system", "user", "assistant", "tool"]


class ImportRecordError(ValueError):
    """A record cannot be imported; the message says what is wrong with it."""


@dataclass(slots=True)
class LoggedCall:
    """A tool call as logged, with the id its result refers to."""

    call: ToolCall
    call_id: str | None = None


@dataclass(slots=True)
class LogMessage:
    """One logged message in simlab's terms."""

    role: Role
    text: str = ""
    calls: list[LoggedCall] = field(default_factory=list)
    # tool role: which call this is the result of, and whether it is an error
    call_id: str | None = None
    is_error: bool = False
    name: str | None = None


def tool_arguments(raw: Any, where: str) -> dict[str, Any]:
    """Tool-call arguments as a dict: OpenAI logs them as a JSON string."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = decode_embedded(raw)
        except json.JSONDecodeError as e:
            raise ImportRecordError(f"{where}: arguments are not valid JSON ({e.msg})") from None
        except ValueError as e:
            raise ImportRecordError(f"{where}: the arguments' JSON {e}") from None
    if not isinstance(raw, dict):
        raise ImportRecordError(f"{where}: arguments must be a JSON object, got {_kind(raw)}")
    return raw


def tool_result(content: Any) -> Any:
    """A tool result as data: JSON text is parsed, anything else is kept as logged."""
    if isinstance(content, str):
        stripped = content.strip()
        if stripped[:1] in ("{", "["):
            try:
                return decode_embedded(stripped)
            except ValueError:  # not JSON simlab can keep as data: the text as logged
                return content
    return content


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else type(value).__name__


def kind_of(value: Any) -> str:
    """A JSON value's kind, for messages: ``an object``, ``a list``, ``int``..."""
    return _kind(value)


def build_transcript(messages: list[LogMessage]) -> tuple[Transcript, dict[str, Any]]:
    """Fold logged messages into turns.

    Args:
        messages: The conversation in order.

    Returns:
        The transcript, and extras for the record's meta: the system prompt and
        any agent text before the first user message (``opening``).

    Raises:
        ImportRecordError: If the conversation has no user message, or a tool
            result names a call id that no earlier call has.
    """
    turns: list[Turn] = []
    extras: dict[str, Any] = {}
    pending: dict[str, ToolCall] = {}
    texts: list[str] = []
    calls: list[ToolCall] = []
    opening: list[str] = []

    def close() -> None:
        if turns:
            turns[-1].agent = (
                AgentReply(text="\n".join(texts), tool_calls=list(calls))
                if texts or calls
                else None
            )
        texts.clear()
        calls.clear()

    for number, msg in enumerate(messages):
        if msg.role == "system":
            extras.setdefault("system", msg.text)
        elif msg.role == "user":
            close()
            turns.append(Turn(index=len(turns) + 1, user=UserTurn(text=msg.text)))
        elif msg.role == "assistant":
            if not turns:
                opening.append(msg.text)
                continue
            if msg.text:
                texts.append(msg.text)
            for logged in msg.calls:
                calls.append(logged.call)
                if logged.call_id is not None:
                    pending[logged.call_id] = logged.call
        else:
            _attach_result(msg, number, pending, calls)
    close()
    if not turns:
        raise ImportRecordError("the conversation has no user message")
    if opening:
        extras["opening"] = "\n".join(opening)
    return Transcript(turns=turns), extras


def _attach_result(
    msg: LogMessage, number: int, pending: dict[str, ToolCall], calls: list[ToolCall]
) -> None:
    call: ToolCall | None = None
    if msg.call_id is not None:
        call = pending.pop(msg.call_id, None)
        if call is None:
            raise ImportRecordError(
                f"message {number}: tool result for call id {msg.call_id!r}, "
                "which no earlier tool call has"
            )
    else:
        # No id (older logs): the oldest call of this turn still without a result.
        call = next((c for c in calls if c.result is None and c.error is None), None)
        if call is None:
            raise ImportRecordError(f"message {number}: tool result with no call to belong to")
    result = tool_result(msg.text)
    if msg.is_error:
        call.error = msg.text or "error"
    else:
        call.result = result

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
    drafts: list[_TurnDraft] = []
    extras: dict[str, Any] = {}
    pending: dict[str, tuple[_TurnDraft, int]] = {}
    opening: list[str] = []
    for number, msg in enumerate(messages):
        if msg.role == "system":
            extras.setdefault("system", msg.text)
        elif msg.role == "user":
            drafts.append(_TurnDraft(msg.text))
        elif msg.role == "assistant":
            if not drafts:
                opening.append(msg.text)
                continue
            draft = drafts[-1]
            if msg.text:
                draft.texts.append(msg.text)
            for logged in msg.calls:
                draft.calls.append(logged.call)
                if logged.call_id is not None:
                    pending[logged.call_id] = (draft, len(draft.calls) - 1)
        else:
            _attach_result(msg, number, pending, drafts[-1] if drafts else None)
    if not drafts:
        raise ImportRecordError("the conversation has no user message")
    if opening:
        extras["opening"] = "\n".join(opening)
    return Transcript(turns=tuple(d.turn(i) for i, d in enumerate(drafts, start=1))), extras


@dataclass(slots=True)
class _TurnDraft:
    """One turn while its messages are read: the user's text, the agent's texts and
    calls (a call's result may come later); frozen into a ``Turn`` once all are read."""

    user_text: str
    texts: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)

    def turn(self, index: int) -> Turn:
        """The finished turn, numbered ``index``; no agent reply when it said nothing."""
        agent = (
            AgentReply(text="\n".join(self.texts), tool_calls=tuple(self.calls))
            if self.texts or self.calls
            else None
        )
        return Turn(index=index, user=UserTurn(text=self.user_text), agent=agent)


def _attach_result(
    msg: LogMessage,
    number: int,
    pending: dict[str, tuple[_TurnDraft, int]],
    current: _TurnDraft | None,
) -> None:
    if msg.call_id is not None:
        found = pending.pop(msg.call_id, None)
        if found is None:
            raise ImportRecordError(
                f"message {number}: tool result for call id {msg.call_id!r}, "
                "which no earlier tool call has"
            )
        draft, at = found
    else:
        # No id (older logs): the oldest call of this turn still without a result.
        calls = current.calls if current is not None else []
        at = next((i for i, c in enumerate(calls) if c.result is None and c.error is None), -1)
        if current is None or at < 0:
            raise ImportRecordError(f"message {number}: tool result with no call to belong to")
        draft = current
    result = tool_result(msg.text)
    call = draft.calls[at]
    if msg.is_error:
        draft.calls[at] = call.model_copy(update={"error": msg.text or "error"})
    else:
        draft.calls[at] = ToolCall(name=call.name, args=call.args, result=result, error=call.error)

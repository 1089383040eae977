"""Parsed requests: what responders see and what the prompt-cache simulation hashes."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Api = Literal["anthropic", "openai"]


class RequestError(ValueError):
    """A request the real provider would reject with HTTP 400."""


def count_tokens(text: str) -> int:
    """The fake tokenizer: one token per four characters, rounded up."""
    return (len(text) + 3) // 4


@dataclass(frozen=True, slots=True)
class FakeToolCall:
    """One native tool call: the tool's name and its arguments.

    Attributes:
        name: The tool called.
        args: Its arguments (the JSON object the model wrote).
        id: The call's id on the wire (``call_...``/``toolu_...``); "" in a reply,
            where the server assigns one.
    """

    name: str
    args: Mapping[str, Any]
    id: str = ""


@dataclass(frozen=True, slots=True)
class FakeMessage:
    """One conversation message flattened to text (tool calls/results as JSON).

    Attributes:
        role: ``user``, ``assistant`` or (OpenAI) ``tool``.
        text: Its content as text; native tool calls and results included as JSON.
        tool_calls: The native tool calls of an assistant message.
        tool_results: The contents of the native tool results it carries (an
            OpenAI ``tool`` message, Anthropic ``tool_result`` blocks), in order.
    """

    role: str
    text: str
    tool_calls: tuple[FakeToolCall, ...] = ()
    tool_results: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FakeTool:
    """A function tool the request offers: name, description, JSON schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


ToolMode = Literal["auto", "required", "none"]


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """What the request lets the model do with its tools.

    Attributes:
        mode: ``auto`` (the model decides), ``required`` (OpenAI ``required``,
            Anthropic ``any``, or a named tool: at least one call) or ``none``.
        name: The one tool a named choice forces, else None.
        parallel: False when at most one call is allowed (OpenAI
            ``parallel_tool_calls: false``, Anthropic ``disable_parallel_tool_use``).
    """

    mode: ToolMode = "auto"
    name: str | None = None
    parallel: bool = True


@dataclass(frozen=True, slots=True)
class PromptSegment:
    """One cacheable unit of the prompt, in the order the provider reads it.

    Attributes:
        canonical: Role-tagged canonical text; prefixes are hashed over these.
        tokens: ``count_tokens`` of the segment's text.
        breakpoint: Whether a cache prefix may end here (``cache_control`` on
            Anthropic; every message on OpenAI, whose caching is automatic).
    """

    canonical: str
    tokens: int
    breakpoint: bool


@dataclass(frozen=True, slots=True)
class FakeRequest:
    """A parsed LLM request, the same shape for both wire protocols.

    Attributes:
        api: Which protocol it came in on.
        model: The requested model id.
        system: System prompt text (Anthropic ``system``; OpenAI system/developer
            messages joined by blank lines).
        messages: The non-system messages, in order.
        max_tokens: Output cap, if given.
        temperature: As sent.
        seed: OpenAI ``seed``, or ``metadata.seed`` if an integer; else ``None``.
        stop: Stop sequences.
        json_mode: OpenAI ``response_format`` asked for JSON.
        json_schema: The schema of a ``json_schema`` response format, if any.
        metadata: Anthropic ``metadata`` as sent.
        tools: The function tools offered, in order.
        tool_choice: What the model may or must do with them.
        stream: Whether the answer is wanted as server-sent events.
        stream_usage: OpenAI ``stream_options.include_usage``: a last chunk with usage.
        index: Arrival index at the server (0-based).
        segments: The prompt as the cache simulation sees it.
        body: The request body as parsed from JSON (``digest`` is computed from it
            when asked: only responders that draw from ``rng`` need it).
    """

    api: Api
    model: str
    system: str
    messages: tuple[FakeMessage, ...]
    max_tokens: int | None
    temperature: float | None
    seed: int | None
    stop: tuple[str, ...]
    json_mode: bool
    json_schema: Mapping[str, Any] | None
    metadata: Mapping[str, Any]
    index: int
    segments: tuple[PromptSegment, ...] = field(repr=False)
    body: Mapping[str, Any] = field(repr=False, compare=False)
    tools: tuple[FakeTool, ...] = ()
    tool_choice: ToolChoice = ToolChoice()
    stream: bool = False
    stream_usage: bool = False

    @property
    def digest(self) -> str:
        """sha256 hex of the canonical JSON body (``body_digest``; computed on each use)."""
        return body_digest(self.body)

    @property
    def last_user_text(self) -> str:
        """Text of the last user message ("" when there is none)."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text
        return ""

    @property
    def input_tokens(self) -> int:
        """Total prompt tokens by the fake tokenizer."""
        return sum(s.tokens for s in self.segments)

    @property
    def rng_seed(self) -> int:
        """The request's seed if it carries one, else 64 bits of its body digest."""
        return self.seed if self.seed is not None else int(self.digest[:16], 16)

    def rng(self) -> random.Random:
        """A ``random.Random`` seeded from ``rng_seed``: same request, same draws."""
        return random.Random(self.rng_seed)


# dict first: what json.loads gives, and much faster than the Mapping ABC's check
_MAPPING = (dict, Mapping)


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def body_digest(body: Mapping[str, Any]) -> str:
    """sha256 hex over the canonical JSON of a request body."""
    return hashlib.sha256(_canonical_json(body).encode()).hexdigest()


def _block_text(block: Any) -> str:
    """Text of one content block; non-text blocks (tool use, images) as canonical JSON."""
    if isinstance(block, str):
        return block
    if not isinstance(block, _MAPPING):
        raise RequestError(f"content block must be an object, got {type(block).__name__}")
    if block.get("type") == "text":
        text = block.get("text")
        if not isinstance(text, str):
            raise RequestError("text block needs a string 'text'")
        return text
    if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
        return str(block["content"])
    return _canonical_json({k: v for k, v in block.items() if k != "cache_control"})


def _segment(role: str, block: Any) -> tuple[str, PromptSegment]:
    text = _block_text(block)
    marked = (
        not isinstance(block, str)
        and isinstance(block, _MAPPING)
        and block.get("cache_control") is not None
    )
    return text, _prompt_segment(role, text, marked)


# A conversation resends its earlier messages with every request: their segments
# (immutable) are made once. Bounded: emptied when full (the next requests refill it).
_SEGMENTS: dict[tuple[str, str, bool], PromptSegment] = {}
_MAX_SEGMENTS = 1 << 16


def _prompt_segment(role: str, text: str, marked: bool) -> PromptSegment:
    """The segment of ``text`` said by ``role`` (``marked``: a cache breakpoint)."""
    key = (role, text, marked)
    seg = _SEGMENTS.get(key)
    if seg is None:
        if len(_SEGMENTS) >= _MAX_SEGMENTS:
            _SEGMENTS.clear()
        seg = _SEGMENTS[key] = PromptSegment(f"{role}\x1f{text}", count_tokens(text), marked)
    return seg


def _require(body: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = body.get(key)
    if value is None:
        raise RequestError(f"{key}: Field required")
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RequestError(f"{key}: wrong type {type(value).__name__}")
    return value


def _optional_number(body: Mapping[str, Any], key: str) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RequestError(f"{key}: must be a number")
    return float(value)


def _int_seed(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _stop_list(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RequestError(f"{key}: must be a string or a list of strings")


def _anthropic_tools(body: Mapping[str, Any]) -> tuple[FakeTool, ...]:
    tools: list[FakeTool] = []
    for i, raw in enumerate(body.get("tools") or []):
        if not isinstance(raw, _MAPPING) or not isinstance(raw.get("name"), str):
            raise RequestError(f"tools.{i}: needs a string 'name'")
        if raw.get("type") not in (None, "custom"):
            continue  # a server tool (web search, ...): run by the provider, never called
        schema = raw.get("input_schema")
        if not isinstance(schema, _MAPPING):
            raise RequestError(f"tools.{i}.input_schema: Field required")
        tools.append(FakeTool(str(raw["name"]), str(raw.get("description") or ""), schema))
    return tuple(tools)


def _checked_choice(choice: ToolChoice, tools: tuple[FakeTool, ...]) -> ToolChoice:
    if choice.mode == "required" and not tools:
        raise RequestError("tool_choice: forcing a tool call needs tools")
    if choice.name is not None and choice.name not in {t.name for t in tools}:
        raise RequestError(f"tool_choice: no tool named {choice.name!r} in tools")
    return choice


def _anthropic_tool_choice(body: Mapping[str, Any], tools: tuple[FakeTool, ...]) -> ToolChoice:
    raw = body.get("tool_choice")
    if raw is None:
        return ToolChoice()
    kind = raw.get("type") if isinstance(raw, _MAPPING) else None
    parallel = not (isinstance(raw, _MAPPING) and raw.get("disable_parallel_tool_use"))
    if kind in ("auto", "none"):
        return ToolChoice(kind, parallel=parallel)
    if kind == "any":
        return _checked_choice(ToolChoice("required", parallel=parallel), tools)
    if kind == "tool" and isinstance(raw.get("name"), str):
        return _checked_choice(ToolChoice("required", str(raw["name"]), parallel), tools)
    raise RequestError("tool_choice: must be {type: auto | any | none} or {type: tool, name}")


def _tool_result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(_block_text(part) for part in content)
    return content if isinstance(content, str) else ""


def _anthropic_message(i: int, raw: Any, segments: list[PromptSegment]) -> FakeMessage:
    if not isinstance(raw, _MAPPING) or raw.get("role") not in ("user", "assistant"):
        raise RequestError(f"messages.{i}: needs role 'user' or 'assistant'")
    role = str(raw["role"])
    content = raw.get("content")
    blocks = [content] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        raise RequestError(f"messages.{i}.content: must be a string or a list of blocks")
    texts: list[str] = []
    calls: list[FakeToolCall] = []
    results: list[str] = []
    for block in blocks:
        text, seg = _segment(role, block)
        texts.append(text)
        segments.append(seg)
        kind = block.get("type") if isinstance(block, _MAPPING) else None
        if kind == "tool_use" and isinstance(block.get("input"), _MAPPING):
            calls.append(FakeToolCall(str(block.get("name")), block["input"], str(block.get("id"))))
        elif kind == "tool_result":
            results.append(_tool_result_text(block))
    return FakeMessage(role, "\n".join(texts), tuple(calls), tuple(results))


def parse_anthropic(
    body: Mapping[str, Any], index: int, *, needs_max_tokens: bool = True
) -> FakeRequest:
    """Parse a Messages API body (``POST /v1/messages``).

    Args:
        body: The JSON body.
        index: The arrival index.
        needs_max_tokens: False for ``/v1/messages/count_tokens``, which takes none.

    Raises:
        RequestError: for what the real API rejects with 400 (missing model,
            max_tokens or messages, wrong types, a tool_choice its tools cannot meet).
    """
    model = _require(body, "model", str)
    max_tokens = _require(body, "max_tokens", int) if needs_max_tokens else None
    raw_messages = _require(body, "messages", list)
    segments: list[PromptSegment] = []
    for tool in body.get("tools") or []:
        segments.append(_segment("tool", tool)[1])
    tools = _anthropic_tools(body)
    raw_system = body.get("system")
    system_parts: list[str] = []
    if isinstance(raw_system, str):
        raw_system = [raw_system]
    for block in raw_system or []:
        text, seg = _segment("system", block)
        system_parts.append(text)
        segments.append(seg)
    messages = [_anthropic_message(i, raw, segments) for i, raw in enumerate(raw_messages)]
    metadata = body.get("metadata") or {}
    return FakeRequest(
        api="anthropic",
        model=model,
        system="\n\n".join(system_parts),
        messages=tuple(messages),
        max_tokens=max_tokens,
        temperature=_optional_number(body, "temperature"),
        seed=_int_seed(metadata.get("seed")) if isinstance(metadata, _MAPPING) else None,
        stop=_stop_list(body.get("stop_sequences"), "stop_sequences"),
        json_mode=False,
        json_schema=None,
        metadata=metadata if isinstance(metadata, _MAPPING) else {},
        index=index,
        segments=tuple(segments),
        body=body,
        tools=tools,
        tool_choice=_anthropic_tool_choice(body, tools),
        stream=bool(body.get("stream")),
    )


def _openai_text(content: Any, i: int) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "\n".join(_block_text(part) for part in content)
    raise RequestError(f"messages[{i}].content: must be a string or a list of parts")


def _openai_tools(body: Mapping[str, Any]) -> tuple[FakeTool, ...]:
    tools: list[FakeTool] = []
    for i, raw in enumerate(body.get("tools") or []):
        if not isinstance(raw, _MAPPING) or raw.get("type") != "function":
            continue  # custom and built-in tools: not simulated, never called
        function = raw.get("function")
        if not isinstance(function, _MAPPING) or not isinstance(function.get("name"), str):
            raise RequestError(f"tools[{i}].function: needs a string 'name'")
        parameters = function.get("parameters")
        tools.append(
            FakeTool(
                str(function["name"]),
                str(function.get("description") or ""),
                parameters if isinstance(parameters, _MAPPING) else {},
            )
        )
    return tuple(tools)


def openai_tool_choice(body: Mapping[str, Any], tools: tuple[FakeTool, ...]) -> ToolChoice:
    """An OpenAI ``tool_choice`` and ``parallel_tool_calls`` (chat or Responses shape).

    Raises:
        RequestError: for a value the API rejects or a choice the tools cannot meet.
    """
    raw = body.get("tool_choice")
    parallel = body.get("parallel_tool_calls") is not False
    if raw is None or raw in ("auto", "none"):
        return ToolChoice(raw or "auto", parallel=parallel)
    if raw == "required":
        return _checked_choice(ToolChoice("required", parallel=parallel), tools)
    if isinstance(raw, _MAPPING) and raw.get("type") == "function":
        # chat: {"type": "function", "function": {"name": ...}}; Responses: {"name": ...}
        function = raw.get("function")
        name = function.get("name") if isinstance(function, _MAPPING) else raw.get("name")
        if isinstance(name, str):
            return _checked_choice(ToolChoice("required", name, parallel), tools)
    raise RequestError("tool_choice: must be auto, none, required or a named function")


def _openai_calls(raw: Any) -> tuple[FakeToolCall, ...]:
    calls: list[FakeToolCall] = []
    for call in raw if isinstance(raw, list) else []:
        function = call.get("function") if isinstance(call, _MAPPING) else None
        if isinstance(function, _MAPPING):
            args = decoded_arguments(function.get("arguments"))
            calls.append(FakeToolCall(str(function.get("name")), args, str(call.get("id"))))
    return tuple(calls)


def decoded_arguments(arguments: Any) -> Mapping[str, Any]:
    """A call's ``arguments`` string as an object ({} when it is not a JSON object)."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _stream_flags(body: Mapping[str, Any]) -> tuple[bool, bool]:
    stream = bool(body.get("stream"))
    options = body.get("stream_options")
    if options is not None and not stream:
        raise RequestError("stream_options: only allowed when stream is true")
    usage = isinstance(options, _MAPPING) and bool(options.get("include_usage"))
    return stream, usage


def parse_openai(body: Mapping[str, Any], index: int) -> FakeRequest:
    """Parse a chat-completions body (``POST /v1/chat/completions``).

    Every message boundary is a cache breakpoint: OpenAI-style caching is automatic.

    Raises:
        RequestError: for what the real API rejects with 400.
    """
    model = _require(body, "model", str)
    raw_messages = _require(body, "messages", list)
    system_parts: list[str] = []
    messages: list[FakeMessage] = []
    segments = [_segment("tool", tool)[1] for tool in body.get("tools") or []]
    tools = _openai_tools(body)
    for i, raw in enumerate(raw_messages):
        if not isinstance(raw, _MAPPING) or not isinstance(raw.get("role"), str):
            raise RequestError(f"messages[{i}]: needs a string 'role'")
        role = str(raw["role"])
        text = _openai_text(raw.get("content"), i)
        if raw.get("tool_calls"):
            text = "\n".join(filter(None, [text, _canonical_json(raw["tool_calls"])]))
        if role in ("system", "developer"):
            system_parts.append(text)
        else:
            results = (text,) if role == "tool" else ()
            messages.append(FakeMessage(role, text, _openai_calls(raw.get("tool_calls")), results))
        segments.append(_prompt_segment(role, text, True))
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is not None and (not isinstance(max_tokens, int) or isinstance(max_tokens, bool)):
        raise RequestError("max_tokens: must be an integer")
    response_format = body.get("response_format") or {}
    fmt_type = response_format.get("type") if isinstance(response_format, Mapping) else None
    schema = None
    if fmt_type == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    stream, stream_usage = _stream_flags(body)
    return FakeRequest(
        api="openai",
        model=model,
        system="\n\n".join(system_parts),
        messages=tuple(messages),
        max_tokens=max_tokens,
        temperature=_optional_number(body, "temperature"),
        seed=_int_seed(body.get("seed")),
        stop=_stop_list(body.get("stop"), "stop"),
        json_mode=fmt_type in ("json_object", "json_schema"),
        json_schema=schema if isinstance(schema, Mapping) else None,
        metadata=body.get("metadata") or {},
        index=index,
        segments=tuple(segments),
        body=body,
        tools=tools,
        tool_choice=openai_tool_choice(body, tools),
        stream=stream,
        stream_usage=stream_usage,
    )

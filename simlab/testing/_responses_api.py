"""OpenAI's Responses API (``POST /v1/responses``): its request read, its basic answer shape.

Input as a string or a list of items (messages, ``function_call``,
``function_call_output``); ``instructions`` as the system prompt; function tools
and ``tool_choice``; ``text.format`` for JSON; streaming as the typed events
(``response.created`` ... ``response.completed``). Not simulated:
``previous_response_id`` (no conversation state is kept), built-in tools.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

from simlab.testing._cache import CacheUsage
from simlab.testing._request import (
    _MAPPING,
    FakeMessage,
    FakeRequest,
    FakeTool,
    FakeToolCall,
    PromptSegment,
    RequestError,
    _block_text,
    _canonical_json,
    _int_seed,
    _optional_number,
    _prompt_segment,
    _require,
    _segment,
    decoded_arguments,
    openai_tool_choice,
)
from simlab.testing._stream import PIECE_CHARS, sse
from simlab.testing._wire import Completion, arguments_json


def _tools(body: Mapping[str, Any]) -> tuple[FakeTool, ...]:
    tools: list[FakeTool] = []
    for i, raw in enumerate(body.get("tools") or []):
        if not isinstance(raw, _MAPPING) or raw.get("type") != "function":
            continue  # built-in tools (web search, file search, ...): not simulated
        if not isinstance(raw.get("name"), str):
            raise RequestError(f"tools[{i}]: a function tool needs a string 'name'")
        parameters = raw.get("parameters")
        tools.append(
            FakeTool(
                str(raw["name"]),
                str(raw.get("description") or ""),
                parameters if isinstance(parameters, _MAPPING) else {},
            )
        )
    return tuple(tools)


def _part_text(part: Any) -> str:
    if isinstance(part, _MAPPING) and part.get("type") in ("input_text", "output_text"):
        return str(part.get("text") or "")
    return _block_text(part)  # other parts (images, files) as canonical JSON


def _content_text(content: Any, i: int) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_part_text(part) for part in content)
    raise RequestError(f"input[{i}].content: must be a string or a list of parts")


def _item(i: int, raw: Any) -> tuple[FakeMessage, str]:
    """One input item as a message, and the role its segment is tagged with."""
    if not isinstance(raw, _MAPPING):
        raise RequestError(f"input[{i}]: must be an object")
    kind = raw.get("type", "message")
    if kind == "function_call":
        args = decoded_arguments(raw.get("arguments"))
        call = FakeToolCall(str(raw.get("name")), args, str(raw.get("call_id")))
        return FakeMessage("assistant", _canonical_json(raw), (call,)), "assistant"
    if kind == "function_call_output":
        output = raw.get("output")
        text = output if isinstance(output, str) else _canonical_json(output)
        return FakeMessage("tool", text, tool_results=(text,)), "tool"
    if kind != "message" or not isinstance(raw.get("role"), str):
        raise RequestError(f"input[{i}]: needs a 'role' (or a function_call type)")
    role = str(raw["role"])
    return FakeMessage(role, _content_text(raw.get("content"), i)), role


def _text_format(body: Mapping[str, Any]) -> tuple[bool, Mapping[str, Any] | None]:
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, _MAPPING) else None
    kind = fmt.get("type") if isinstance(fmt, _MAPPING) else None
    schema = fmt.get("schema") if isinstance(fmt, _MAPPING) and kind == "json_schema" else None
    return kind in ("json_object", "json_schema"), schema if isinstance(schema, _MAPPING) else None


def parse_responses(body: Mapping[str, Any], index: int) -> FakeRequest:
    """Parse a Responses API body; every item is a cache breakpoint, as on chat.

    Raises:
        RequestError: for what the real API rejects with 400.
    """
    model = _require(body, "model", str)
    raw_input = _require(body, "input", (str, list))
    items = [{"role": "user", "content": raw_input}] if isinstance(raw_input, str) else raw_input
    segments: list[PromptSegment] = [_segment("tool", t)[1] for t in body.get("tools") or []]
    tools = _tools(body)
    instructions = body.get("instructions")
    system_parts = [instructions] if isinstance(instructions, str) and instructions else []
    segments.extend(_prompt_segment("system", text, True) for text in system_parts)
    messages: list[FakeMessage] = []
    for i, raw in enumerate(items):
        message, role = _item(i, raw)
        if role in ("system", "developer"):
            system_parts.append(message.text)
        else:
            messages.append(message)
        segments.append(_prompt_segment(role, message.text, True))
    max_tokens = body.get("max_output_tokens")
    if max_tokens is not None and (not isinstance(max_tokens, int) or isinstance(max_tokens, bool)):
        raise RequestError("max_output_tokens: must be an integer")
    json_mode, schema = _text_format(body)
    metadata = body.get("metadata")
    return FakeRequest(
        api="openai",
        model=model,
        system="\n\n".join(system_parts),
        messages=tuple(messages),
        max_tokens=max_tokens,
        temperature=_optional_number(body, "temperature"),
        seed=_int_seed(body.get("seed")),
        stop=(),
        json_mode=json_mode,
        json_schema=schema,
        metadata=metadata if isinstance(metadata, _MAPPING) else {},
        index=index,
        segments=tuple(segments),
        body=body,
        tools=tools,
        tool_choice=openai_tool_choice(body, tools),
        stream=bool(body.get("stream")),
    )


def _output(done: Completion, request_id: str) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    if done.text or not done.tool_calls:
        text = {"type": "output_text", "text": done.text, "annotations": [], "logprobs": []}
        output.append(
            {
                "type": "message",
                "id": f"msg_{request_id}",
                "status": "completed",
                "role": "assistant",
                "content": [text],
            }
        )
    for n, call in enumerate(done.tool_calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{request_id}_{n}",
                "call_id": call.id,
                "name": call.name,
                "arguments": arguments_json(call),
                "status": "completed",
            }
        )
    return output


def responses_body(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> dict[str, Any]:
    """A Responses API response object (``status`` incomplete when max_output_tokens cut it)."""
    prompt = usage.uncached + usage.cache_read + usage.cache_creation
    cut = done.stop_reason == "max_tokens"
    body = request.body
    return {
        "id": f"resp_{request_id}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if cut else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": request.max_tokens,
        "metadata": dict(request.metadata),
        "model": request.model,
        "output": _output(done, request_id),
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "temperature": request.temperature if request.temperature is not None else 1.0,
        "text": body.get("text") or {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": list(body.get("tools") or []),
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": usage.cache_read},
            "output_tokens": done.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + done.output_tokens,
        },
    }


def _in_progress(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as ``output_item.added`` announces it: in progress, nothing said yet."""
    if item["type"] == "message":
        return item | {"status": "in_progress", "content": []}
    return item | {"status": "in_progress", "arguments": ""}


def _item_events(index: int, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    where = {"item_id": item["id"], "output_index": index}
    yield {"type": "response.output_item.added", "output_index": index, "item": _in_progress(item)}
    if item["type"] == "message":
        part = item["content"][0]
        at = where | {"content_index": 0}
        yield {"type": "response.content_part.added", **at, "part": part | {"text": ""}}
        text = part["text"]
        for i in range(0, len(text), PIECE_CHARS):
            delta = text[i : i + PIECE_CHARS]
            yield {"type": "response.output_text.delta", **at, "delta": delta, "logprobs": []}
        yield {"type": "response.output_text.done", **at, "text": text, "logprobs": []}
        yield {"type": "response.content_part.done", **at, "part": part}
    else:
        arguments = item["arguments"]
        for i in range(0, len(arguments), PIECE_CHARS):
            delta = arguments[i : i + PIECE_CHARS]
            yield {"type": "response.function_call_arguments.delta", **where, "delta": delta}
        yield {"type": "response.function_call_arguments.done", **where, "arguments": arguments}
    yield {"type": "response.output_item.done", "output_index": index, "item": item}


def responses_events(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> Iterator[bytes]:
    """The Responses API's stream: created, in_progress, each output item's events, then
    ``response.completed`` (``response.incomplete`` when max_output_tokens cut it)."""
    final = responses_body(request, done, usage, request_id)
    start = final | {"status": "in_progress", "output": [], "usage": None}
    start |= {"incomplete_details": None}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": start},
        {"type": "response.in_progress", "response": start},
    ]
    for index, item in enumerate(final["output"]):
        events.extend(_item_events(index, item))
    events.append({"type": f"response.{final['status']}", "response": final})
    for number, event in enumerate(events):
        yield sse(event | {"sequence_number": number}, event["type"])

"""A completion as server-sent events, in the order and shape each provider streams them."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from simlab.testing._cache import CacheUsage
from simlab.testing._request import FakeRequest
from simlab.testing._wire import (
    OPENAI_FINISH,
    Completion,
    anthropic_tool_id,
    anthropic_usage,
    arguments_json,
    openai_usage,
)

PIECE_CHARS = 16
"""Characters per text or argument delta: about four tokens, as real streams come."""


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE_CHARS] for i in range(0, len(text), PIECE_CHARS)]


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: an optional ``event:`` line, a ``data:`` line of JSON."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {payload}\n\n".encode()


def anthropic_events(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> Iterator[bytes]:
    """message_start, ping, each block's start/deltas/stop, message_delta, message_stop."""
    message: dict[str, Any] = {
        "id": f"msg_{request_id}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": anthropic_usage(usage, 1),
    }
    yield sse({"type": "message_start", "message": message}, "message_start")
    yield sse({"type": "ping"}, "ping")
    index = 0
    if done.text or not done.tool_calls:
        yield _block_start(index, {"type": "text", "text": ""})
        for piece in _pieces(done.text):
            yield _block_delta(index, {"type": "text_delta", "text": piece})
        yield _block_stop(index)
        index += 1
    for call in done.tool_calls:
        block = {"type": "tool_use", "id": anthropic_tool_id(call), "name": call.name, "input": {}}
        yield _block_start(index, block)
        for piece in _pieces(arguments_json(call)):
            yield _block_delta(index, {"type": "input_json_delta", "partial_json": piece})
        yield _block_stop(index)
        index += 1
    final = anthropic_usage(usage, done.output_tokens)
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": done.stop_reason, "stop_sequence": done.stop_sequence},
        "usage": {k: final[k] for k in _DELTA_USAGE},
    }
    yield sse(delta, "message_delta")
    yield sse({"type": "message_stop"}, "message_stop")


_DELTA_USAGE = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    return sse(
        {"type": "content_block_start", "index": index, "content_block": block},
        "content_block_start",
    )


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    return sse(
        {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
    )


def _block_stop(index: int) -> bytes:
    return sse({"type": "content_block_stop", "index": index}, "content_block_stop")


def openai_chunks(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> Iterator[bytes]:
    """chat.completion.chunk events, then (``include_usage``) a usage chunk, then [DONE]."""
    base: dict[str, Any] = {
        "id": f"chatcmpl-{request_id}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.model,
        "system_fingerprint": "fp_simlab_fake",
    }
    if request.stream_usage:
        base["usage"] = None  # every chunk but the last says so when usage was asked for

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return sse(base | {"choices": [choice]})

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in _pieces(done.text):
        yield chunk({"content": piece})
    for n, call in enumerate(done.tool_calls):
        function = {"name": call.name, "arguments": ""}
        yield chunk(
            {"tool_calls": [{"index": n, "id": call.id, "type": "function", "function": function}]}
        )
        for piece in _pieces(arguments_json(call)):
            yield chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]})
    yield chunk({}, OPENAI_FINISH[done.stop_reason])
    if request.stream_usage:
        yield sse(base | {"choices": [], "usage": openai_usage(usage, done.output_tokens)})
    yield sse("[DONE]")

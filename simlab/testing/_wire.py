"""Response and error bodies in each provider's wire shape."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Literal

from simlab.testing._cache import CacheUsage
from simlab.testing._reply import FakeReply
from simlab.testing._request import Api, FakeRequest, FakeToolCall, count_tokens

ErrorKind = Literal[
    "invalid_request", "authentication", "not_found", "rate_limit", "overloaded", "server_error"
]

# (status, Anthropic error type, OpenAI status, OpenAI error type, OpenAI code)
_ERRORS: dict[ErrorKind, tuple[int, str, int, str, str | None]] = {
    "invalid_request": (400, "invalid_request_error", 400, "invalid_request_error", None),
    "authentication": (
        401,
        "authentication_error",
        401,
        "invalid_request_error",
        "invalid_api_key",
    ),
    "not_found": (404, "not_found_error", 404, "invalid_request_error", "not_found"),
    "rate_limit": (429, "rate_limit_error", 429, "requests", "rate_limit_exceeded"),
    # OpenAI-compatible servers say 503 where Anthropic says 529.
    "overloaded": (529, "overloaded_error", 503, "server_error", "service_unavailable"),
    "server_error": (500, "api_error", 500, "server_error", None),
}


StopReason = Literal["end_turn", "max_tokens", "stop_sequence", "tool_use"]


@dataclass(frozen=True, slots=True)
class Completion:
    """The reply after max_tokens and stop sequences were applied.

    Attributes:
        text: The text, cut.
        tool_calls: The native calls, each with its wire id (``call_...``).
        output_tokens: Tokens of the text and of the calls' names and arguments.
        stop_reason: In Anthropic's words; ``tool_use`` when there are calls.
        stop_sequence: The stop sequence that cut the text, if one did.
    """

    text: str
    tool_calls: tuple[FakeToolCall, ...]
    output_tokens: int
    stop_reason: StopReason
    stop_sequence: str | None


def arguments_json(call: FakeToolCall) -> str:
    """A call's arguments as the JSON string OpenAI sends (and Anthropic streams)."""
    return json.dumps(call.args, ensure_ascii=False)


def complete(request: FakeRequest, reply: FakeReply, request_id: str) -> Completion:
    """Cut the text at the first stop sequence, then at ``max_tokens`` (4 chars a token).

    Calls are kept whole and named ``call_<request_id>_<n>``; with calls the stop
    reason is ``tool_use`` unless the text ran out of tokens.
    """
    text = reply.text
    calls = tuple(
        FakeToolCall(c.name, c.args, f"call_{request_id}_{n}")
        for n, c in enumerate(reply.tool_calls)
    )
    call_tokens = sum(count_tokens(c.name + arguments_json(c)) for c in calls)
    cut = min(
        ((i, s) for s in request.stop if s and (i := text.find(s)) != -1),
        default=None,
    )
    if cut is not None:
        text = text[: cut[0]]
    if request.max_tokens is not None and count_tokens(text) > request.max_tokens:
        text = text[: request.max_tokens * 4]
        return Completion(text, calls, count_tokens(text) + call_tokens, "max_tokens", None)
    tokens = count_tokens(text) + call_tokens
    if calls:
        return Completion(text, calls, tokens, "tool_use", None)
    if cut is not None:
        return Completion(text, calls, tokens, "stop_sequence", cut[1])
    return Completion(text, calls, tokens, "end_turn", None)


def anthropic_usage(usage: CacheUsage, output_tokens: int) -> dict[str, Any]:
    """A Messages API ``usage`` object."""
    return {
        "input_tokens": usage.uncached,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": usage.cache_creation,
        "cache_read_input_tokens": usage.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": usage.cache_creation,
            "ephemeral_1h_input_tokens": 0,
        },
        "service_tier": "standard",
    }


def anthropic_tool_id(call: FakeToolCall) -> str:
    """The Anthropic id of a call (``toolu_...``) from its server-assigned id."""
    return "toolu_" + call.id.removeprefix("call_")


def anthropic_blocks(done: Completion) -> list[dict[str, Any]]:
    """The content blocks: the text (omitted when empty beside calls), then ``tool_use``."""
    blocks: list[dict[str, Any]] = []
    if done.text or not done.tool_calls:
        blocks.append({"type": "text", "text": done.text})
    for call in done.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": anthropic_tool_id(call),
                "name": call.name,
                "input": call.args,
            }
        )
    return blocks


def anthropic_message(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": f"msg_{request_id}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": anthropic_blocks(done),
        "stop_reason": done.stop_reason,
        "stop_sequence": done.stop_sequence,
        "usage": anthropic_usage(usage, done.output_tokens),
    }


OPENAI_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}


def openai_tool_calls(done: Completion) -> list[dict[str, Any]]:
    """The ``tool_calls`` of a chat completion message."""
    return [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": arguments_json(c)},
        }
        for c in done.tool_calls
    ]


def openai_usage(usage: CacheUsage, output_tokens: int) -> dict[str, Any]:
    """A chat-completions ``usage`` object (``prompt_tokens`` includes cached tokens)."""
    prompt = usage.uncached + usage.cache_read + usage.cache_creation
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output_tokens,
        "total_tokens": prompt + output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
    }


def openai_completion(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> dict[str, Any]:
    """A chat-completions response body (content null when only tools are called)."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": done.text if done.text or not done.tool_calls else None,
        "refusal": None,
    }
    if done.tool_calls:
        message["tool_calls"] = openai_tool_calls(done)
    return {
        "id": f"chatcmpl-{request_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "system_fingerprint": "fp_simlab_fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": OPENAI_FINISH[done.stop_reason],
            }
        ],
        "usage": openai_usage(usage, done.output_tokens),
    }


def error_body(
    api: Api, kind: ErrorKind, message: str, request_id: str
) -> tuple[int, dict[str, Any]]:
    """HTTP status and body of an error in ``api``'s shape."""
    status, a_type, o_status, o_type, o_code = _ERRORS[kind]
    if api == "anthropic":
        body = {"type": "error", "error": {"type": a_type, "message": message}}
        return status, body | {"request_id": f"req_{request_id}"}
    error = {"message": message, "type": o_type, "param": None, "code": o_code}
    return o_status, {"error": error}


def malformed_body(api: Api) -> bytes:
    """A 200 body that starts like the real thing and stops mid-string."""
    if api == "anthropic":
        return b'{"id": "msg_fake", "type": "message", "role": "assistant", "content": [{"type'
    return b'{"id": "chatcmpl-fake", "object": "chat.completion", "choices": [{"index": 0, "mes'

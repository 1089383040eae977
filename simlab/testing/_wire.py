"""Response and error bodies in each provider's wire shape."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from simlab.testing._cache import CacheUsage
from simlab.testing._request import Api, FakeRequest, count_tokens

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


@dataclass(frozen=True, slots=True)
class Completion:
    """The reply after max_tokens and stop sequences were applied."""

    text: str
    output_tokens: int
    stop_reason: Literal["end_turn", "max_tokens", "stop_sequence"]
    stop_sequence: str | None


def complete(request: FakeRequest, reply: str) -> Completion:
    """Cut ``reply`` at the first stop sequence, then at ``max_tokens`` (4 chars a token)."""
    cut = min(
        ((i, s) for s in request.stop if s and (i := reply.find(s)) != -1),
        default=None,
    )
    if cut is not None:
        reply = reply[: cut[0]]
    if request.max_tokens is not None and count_tokens(reply) > request.max_tokens:
        text = reply[: request.max_tokens * 4]
        return Completion(text, count_tokens(text), "max_tokens", None)
    if cut is not None:
        return Completion(reply, count_tokens(reply), "stop_sequence", cut[1])
    return Completion(reply, count_tokens(reply), "end_turn", None)


def anthropic_message(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": f"msg_{request_id}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [{"type": "text", "text": done.text}],
        "stop_reason": done.stop_reason,
        "stop_sequence": done.stop_sequence,
        "usage": {
            "input_tokens": usage.uncached,
            "output_tokens": done.output_tokens,
            "cache_creation_input_tokens": usage.cache_creation,
            "cache_read_input_tokens": usage.cache_read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": usage.cache_creation,
                "ephemeral_1h_input_tokens": 0,
            },
            "service_tier": "standard",
        },
    }


_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}


def openai_completion(
    request: FakeRequest, done: Completion, usage: CacheUsage, request_id: str
) -> dict[str, Any]:
    """A chat-completions response body (``prompt_tokens`` includes cached tokens)."""
    prompt = usage.uncached + usage.cache_read + usage.cache_creation
    return {
        "id": f"chatcmpl-{request_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "system_fingerprint": "fp_simlab_fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": done.text, "refusal": None},
                "logprobs": None,
                "finish_reason": _FINISH[done.stop_reason],
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": done.output_tokens,
            "total_tokens": prompt + done.output_tokens,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        },
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

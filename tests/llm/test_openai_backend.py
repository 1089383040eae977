"""The openai backend: request body, parsing, errors; and end to end on the fake server."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from simlab.llm import (
    LLMConfigError,
    LLMMessage,
    LLMRequest,
    LLMSpec,
    LLMStats,
    MalformedResponseError,
    ProviderConnectionError,
    ProviderStatusError,
    create_llm,
)
from simlab.llm._openai import OpenAILLM
from simlab.llm._transport import HttpxTransport
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

REQ = LLMRequest(
    messages=(LLMMessage(role="user", content="a flight"),),
    system="be brief",
    seed=42,
    stop=("END",),
    json_output=True,
    role="user",
)
OK_BODY = {
    "id": "chatcmpl-1",
    "model": "served-model",
    "choices": [{"message": {"role": "assistant", "content": '{"a": 1}'}, "finish_reason": "stop"}],
    "usage": {
        "prompt_tokens": 30,
        "completion_tokens": 5,
        "prompt_tokens_details": {"cached_tokens": 20},
    },
}


def _mock_llm(handler: Any, spec: LLMSpec | None = None) -> OpenAILLM:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    spec = spec or LLMSpec(backend="openai", base_url="http://vllm.local/v1", model="qwen")
    return OpenAILLM(spec, transport=HttpxTransport(client, httpx2))


async def test_body_and_parsing() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert str(request.url) == "http://vllm.local/v1/chat/completions"
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=OK_BODY)

    resp = await _mock_llm(handler).complete(REQ)
    assert seen == [
        {
            "model": "qwen",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "a flight"},
            ],
            "max_tokens": 1024,
            "seed": 42,
            "stop": ["END"],
            "response_format": {"type": "json_object"},
        }
    ]
    assert resp.text == '{"a": 1}'
    assert resp.model == "served-model"
    assert resp.stop_reason == "stop"
    assert resp.raw_id == "chatcmpl-1"
    # prompt_tokens includes the cached 20: uncached input is 10.
    assert (resp.usage.input_tokens, resp.usage.cache_read_tokens) == (10, 20)
    assert resp.usage.output_tokens == 5


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx2.Response(200, content=b'{"choices": [{"mess'), MalformedResponseError),
        (httpx2.Response(200, json={"choices": []}), MalformedResponseError),
        (httpx2.Response(503, json={"error": {"message": "busy"}}), ProviderStatusError),
    ],
)
async def test_errors_are_translated(response: httpx2.Response, error: type[Exception]) -> None:
    with pytest.raises(error):
        await _mock_llm(lambda _r: response).complete(REQ)


async def test_dropped_connection_is_a_connection_error() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.RemoteProtocolError("peer closed", request=request)

    with pytest.raises(ProviderConnectionError):
        await _mock_llm(handler).complete(REQ)


async def test_401_fails_fast_with_an_actionable_message() -> None:
    def handler(_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, json={"error": {"message": "Incorrect API key"}})

    with pytest.raises(ProviderStatusError) as info:
        await _mock_llm(handler).complete(REQ)
    message = str(info.value)
    assert "HTTP 401" in message and "Incorrect API key" in message
    assert "OPENAI_API_KEY" in message and "Fix:" in message


def test_missing_key_for_openai_itself() -> None:
    with pytest.raises(LLMConfigError, match=r"\$OPENAI_API_KEY"):
        create_llm(LLMSpec(backend="openai"))


async def test_end_to_end_on_fake_server_with_faults(retry_waits: list[float]) -> None:
    config = FakeProviderConfig(
        fault_sequence=("rate_limit", "server_error", "malformed", "dropped"), retry_after_s=3
    )
    fake = FakeProvider(config, scripted(["Hello from the fake."]))
    stats = LLMStats()
    async with fake.serve() as base_url:
        llm = create_llm(LLMSpec(backend="openai", base_url=base_url, model="fake"), stats=stats)
        try:
            resp = await llm.complete(REQ)
        finally:
            await llm.aclose()
    assert resp.text == "Hello from the fake."
    assert resp.attempts == 5
    assert retry_waits[0] == 3.0  # the 429's retry-after
    assert dict(stats.role("user").errors) == {
        "http_429": 1,
        "http_500": 1,
        "malformed": 1,
        "connection": 1,
    }
    assert fake.requests[-1].seed == 42 and fake.requests[-1].json_mode

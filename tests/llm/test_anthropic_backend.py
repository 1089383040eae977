"""The anthropic backend: cache breakpoints, usage, errors, the missing-key message."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx2
import pytest
from aiohttp import web
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.llm import (
    LLMConfigError,
    LLMMessage,
    LLMRequest,
    LLMSpec,
    LLMStats,
    MalformedResponseError,
    ProviderStatusError,
    create_llm,
)
from simlab.llm._anthropic import AnthropicLLM
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

EPHEMERAL = {"type": "ephemeral"}
SYSTEM = "You are a traveller booking a trip. " * 10


def _transcript(n_user: int) -> tuple[LLMMessage, ...]:
    messages: list[LLMMessage] = []
    for i in range(n_user):
        messages.append(LLMMessage(role="user", content=f"user turn {i}"))
        if i < n_user - 1:
            messages.append(LLMMessage(role="assistant", content=f"agent turn {i}"))
    return tuple(messages)


def _message_body(text: str = "fine") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 12,
            "output_tokens": 3,
            "cache_read_input_tokens": 400,
            "cache_creation_input_tokens": 50,
        },
    }


async def test_request_carries_two_cache_breakpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=_message_body())

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    llm = AnthropicLLM(LLMSpec(backend="anthropic", temperature=0.3), http_client=client)
    req = LLMRequest(messages=_transcript(3), system=SYSTEM, stop=("DONE",), role="user")
    resp = await llm.complete(req)

    body = bodies[0]
    assert body["system"] == [{"type": "text", "text": SYSTEM, "cache_control": EPHEMERAL}]
    marked = [
        (i, block["text"])
        for i, m in enumerate(body["messages"])
        for block in m["content"]
        if block.get("cache_control") == EPHEMERAL
    ]
    assert marked == [(4, "user turn 2")]  # only the last block of the transcript
    assert (body["model"], body["max_tokens"], body["temperature"]) == (
        "claude-haiku-4-5",
        1024,
        0.3,
    )
    assert body["stop_sequences"] == ["DONE"]
    assert resp.text == "fine"
    assert resp.model == "claude-haiku-4-5-20251001"
    assert (resp.usage.cache_read_tokens, resp.usage.cache_write_tokens) == (400, 50)
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (12, 3)


async def test_sdk_retries_are_off_and_ours_count(
    monkeypatch: pytest.MonkeyPatch, retry_waits: list[float]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    calls = []

    def handler(_request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        if len(calls) == 1:
            body = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
            return httpx2.Response(529, json=body, headers={"retry-after": "4"})
        return httpx2.Response(200, json=_message_body("after 529"))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    llm = AnthropicLLM(LLMSpec(backend="anthropic"), http_client=client)
    with pytest.raises(ProviderStatusError) as info:
        await llm.complete(LLMRequest(messages=_transcript(1)))
    assert info.value.status == 529 and info.value.headers["retry-after"] == "4"
    assert len(calls) == 1  # the SDK did not retry on its own


def test_missing_key_names_the_variable_and_the_fix() -> None:
    with pytest.raises(LLMConfigError) as info:
        create_llm(LLMSpec(backend="anthropic"))
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message
    assert "export ANTHROPIC_API_KEY" in message and "simlab fake-provider" in message
    assert info.value.__cause__ is None and info.value.__context__ is None


async def test_transcript_prefix_is_read_from_cache_on_the_fake_server(
    monkeypatch: pytest.MonkeyPatch, retry_waits: list[float]
) -> None:
    # No key at all: a loopback endpoint (via ANTHROPIC_BASE_URL, as the SDK reads it) is allowed.
    fake = FakeProvider(
        FakeProviderConfig(fault_sequence=("overloaded",)),
        scripted(["agent turn 0", "agent turn 1"]),
    )
    stats = LLMStats()
    async with fake.serve() as base_url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
        llm = create_llm(LLMSpec(backend="anthropic", model="claude-fake"), stats=stats)
        first = await llm.complete(LLMRequest(messages=_transcript(1), system=SYSTEM))
        second = await llm.complete(LLMRequest(messages=_transcript(2), system=SYSTEM))
        await llm.aclose()
    # The fake's 529 carries no retry-after: one backoff step of base 0.5 s, in [0.25, 0.5].
    assert first.attempts == 2 and len(retry_waits) == 1 and 0.25 <= retry_waits[0] <= 0.5
    assert first.usage.cache_read_tokens == 0 and first.usage.cache_write_tokens > 0
    # Turn 2 re-reads system + turn 1 (the previous breakpoint) from the cache.
    assert second.usage.cache_read_tokens >= first.usage.cache_write_tokens
    breakpoints = [s.breakpoint for s in fake.requests[-1].segments]
    assert breakpoints.count(True) == 2 and breakpoints[-1]
    assert dict(stats.role("agent").errors) == {"http_529": 1}


@pytest.mark.parametrize(
    "reply",
    [
        httpx2.Response(200, content=b"<html>gateway</html>"),  # not JSON
        httpx2.Response(200, json={"id": "msg_1", "content": [{"type": "text"}]}),  # no usage
        httpx2.Response(200, json=["not", "a", "message"]),
    ],
)
async def test_a_2xx_reply_that_is_not_a_message_is_malformed(
    monkeypatch: pytest.MonkeyPatch, reply: httpx2.Response
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda _request: reply))
    llm = AnthropicLLM(LLMSpec(backend="anthropic"), http_client=client)
    with pytest.raises(MalformedResponseError):
        await llm.complete(LLMRequest(messages=_transcript(1)))


async def test_the_lean_post_and_the_sdk_call_send_the_same_body_and_read_the_same_reply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    seen: list[tuple[dict[str, Any], str]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append((json.loads(request.content), request.headers["content-type"]))
        return httpx2.Response(200, json=_message_body("same"))

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    llm = AnthropicLLM(LLMSpec(backend="anthropic", temperature=0.3), http_client=client)
    req = LLMRequest(messages=_transcript(3), system=SYSTEM, stop=("DONE",), json_output=True)
    lean = await llm.complete(req)
    llm._lean = False  # the SDK's typed messages.create
    typed = await llm.complete(req)
    assert seen[0] == seen[1] and seen[0][1] == "application/json"
    assert lean.model_dump(exclude={"latency_s"}) == typed.model_dump(exclude={"latency_s"})


_TEXT = st.text(st.characters(codec="utf-8"), max_size=200)  # lone surrogates aside
_REQUESTS = st.builds(
    LLMRequest,
    messages=st.lists(
        st.builds(LLMMessage, role=st.sampled_from(["user", "assistant"]), content=_TEXT),
        max_size=6,
    ).map(tuple),
    system=_TEXT,
    max_tokens=st.none() | st.integers(1, 10**6),
    temperature=st.none() | st.floats(0.0, 2.0),
    stop=st.lists(_TEXT, max_size=2).map(tuple),
    json_output=st.booleans(),
    model=st.none() | _TEXT,
)


@settings(max_examples=300, deadline=None)
@given(req=_REQUESTS, temperature=st.none() | st.floats(0.0, 1.0))
def test_request_json_is_json_dumps_of_the_body_byte_for_byte(
    req: LLMRequest, temperature: float | None
) -> None:
    llm = AnthropicLLM(
        LLMSpec(backend="anthropic", base_url="http://127.0.0.1:1", temperature=temperature)
    )
    expected = json.dumps(llm.request_body(req)).encode()
    assert llm.request_json(req) == expected
    assert llm.request_json(req) == expected  # again, from the cache of escaped texts


async def test_the_direct_path_posts_request_json_with_its_content_type() -> None:
    seen: list[tuple[bytes, str]] = []

    async def messages(request: web.Request) -> web.Response:
        seen.append((await request.read(), request.headers["content-type"]))
        return web.json_response(_message_body("direct"))

    app = web.Application()
    app.router.add_post("/v1/messages", messages)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        llm = AnthropicLLM(LLMSpec(backend="anthropic", base_url=f"http://127.0.0.1:{port}"))
        req = LLMRequest(messages=_transcript(3), system=SYSTEM + "é ✓", json_output=True)
        resp = await llm.complete(req)
        await llm.aclose()
    finally:
        await runner.cleanup()
    assert seen == [(json.dumps(llm.request_body(req)).encode(), "application/json")]
    assert resp.text == "direct" and resp.usage.cache_read_tokens == 400


def test_the_direct_path_never_imports_the_sdk() -> None:
    # Importing the SDK costs about a CPU-second; the direct path has no use for it.
    code = (
        "import sys; from simlab.llm import LLMSpec, create_llm; "
        "create_llm(LLMSpec(backend='anthropic', base_url='http://127.0.0.1:1')); "
        "print('anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

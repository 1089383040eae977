"""HttpAgent on a tiny aiohttp server: messages out, text and tool calls in, keys kept secret."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from simlab.agents import (
    HttpAgent,
    HttpAgentConfigError,
    HttpAgentError,
    completion_reply,
    http_target_factory,
)
from simlab.contracts import SessionSetup
from simlab.core import Knobs, Message, SessionContext, SessionKey, ToolCall
from simlab.spec import Goal, HttpTargetSpec, Mode, Persona
from simlab.testing import FakeProvider, scripted

KEY = "sk-test-0123456789abcdef"
CTX = SessionContext("p/g/full/0", 99, 2, Knobs())
HISTORY = [
    Message(role="user", text="Refund MB4T9R please"),
    Message(role="assistant", text="Which reason?"),
    Message(role="user", text="Plans changed"),
]

COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "model": "agent-1",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": "Refunded 43 USD.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {
                            "name": "get_booking",
                            "arguments": '{"booking_ref":"MB4T9R"}',
                        },
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "refund", "arguments": {"booking_ref": "MB4T9R"}},
                    },
                    {
                        "id": "call_3",
                        "type": "function",
                        "function": {"name": "refund", "arguments": "{not json"},
                    },
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 30, "completion_tokens": 8, "total_tokens": 38},
}


@dataclass
class Seen:
    """What the server received."""

    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)


Handler = Callable[[web.Request, dict[str, Any]], web.Response]


@asynccontextmanager
async def server(handler: Handler) -> AsyncIterator[tuple[str, Seen]]:
    seen = Seen()

    async def route(request: web.Request) -> web.Response:
        body = await request.json()
        seen.paths.append(request.path)
        seen.headers.append(dict(request.headers))
        seen.bodies.append(body)
        return handler(request, body)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", route)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}/v1", seen
    finally:
        await runner.cleanup()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_KEY", KEY)


def _ok(_: web.Request, __: dict[str, Any]) -> web.Response:
    return web.json_response(COMPLETION)


@pytest.mark.anyio
async def test_reply_parses_text_and_every_tool_call() -> None:
    async with server(_ok) as (url, seen):
        agent = HttpAgent(url + "/", "agent-1", "AGENT_KEY", 5.0)
        try:
            reply = await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert reply.text == "Refunded 43 USD."
    assert reply.tool_calls == (
        ToolCall(name="get_booking", args={"booking_ref": "MB4T9R"}),
        ToolCall(name="refund", args={"booking_ref": "MB4T9R"}),
        ToolCall(name="refund", error="arguments are not a JSON object: {not json"),
    )
    # no simlab_tool_results: the calls keep no result, and the reply says so
    assert reply.meta == {
        "usage": COMPLETION["usage"],
        "model": "agent-1",  # the model the usage is priced by
        "tool_results": "not_reported",
    }
    assert seen.paths == ["/v1/chat/completions"]
    assert seen.bodies == [
        {
            "model": "agent-1",
            "messages": [
                {"role": "user", "content": "Refund MB4T9R please"},
                {"role": "assistant", "content": "Which reason?"},
                {"role": "user", "content": "Plans changed"},
            ],
            "seed": 99,
        }
    ]
    headers = seen.headers[0]
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["X-Simlab-Session"] == "p/g/full/0"
    # the key reaches the server and nothing else
    assert KEY not in reply.model_dump_json()
    assert KEY not in repr(agent.__dict__)


@pytest.mark.anyio
async def test_error_status_names_status_and_excerpt_but_not_the_key() -> None:
    def leaky(request: web.Request, _: dict[str, Any]) -> web.Response:
        # A careless server echoing the credentials it was sent.
        auth = request.headers["Authorization"]
        return web.Response(
            status=503, text=f"overloaded; you sent {auth} and key={KEY}" + "x" * 500
        )

    async with server(leaky) as (url, _):
        agent = HttpAgent(url, api_key_env="AGENT_KEY")
        try:
            with pytest.raises(HttpAgentError) as info:
                await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    message = str(info.value)
    assert message.startswith(f"POST {url}/chat/completions returned HTTP 503: overloaded;")
    assert "Bearer ***" in message and "key=***" in message
    assert KEY not in message
    assert len(message) < 300  # an excerpt, not the whole body


@pytest.mark.anyio
async def test_a_body_without_a_message_is_an_agent_error() -> None:
    async with server(lambda *_: web.json_response({"choices": []})) as (url, _):
        agent = HttpAgent(url)
        try:
            with pytest.raises(HttpAgentError, match=r"no choices\[0\]\.message"):
                await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()


@pytest.mark.anyio
async def test_no_key_variable_sends_no_authorization() -> None:
    async with server(_ok) as (url, seen):
        agent = HttpAgent(url)
        try:
            await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert "Authorization" not in seen.headers[0]


def test_an_unset_key_variable_fails_at_set_up_naming_it() -> None:
    with pytest.raises(HttpAgentConfigError, match=r"\$NOPE_KEY is not set"):
        http_target_factory(HttpTargetSpec(url="http://127.0.0.1:1", api_key_env="NOPE_KEY"))


@pytest.mark.anyio
async def test_factory_agents_share_one_session_closed_by_aclose() -> None:
    async with server(_ok) as (url, seen):
        factory = http_target_factory(HttpTargetSpec(url=url, model="m", api_key_env="AGENT_KEY"))
        a, b = factory(_setup()), factory(_setup())
        assert a is not b
        await a.reply(HISTORY, CTX)
        await b.reply(HISTORY, CTX)
        shared = a._session.get()
        assert b._session.get() is shared
        await factory.aclose()
        assert shared.closed
    assert len(seen.bodies) == 2


@pytest.mark.anyio
async def test_against_the_fake_providers_openai_endpoint() -> None:
    fake = FakeProvider(responder=scripted(["Your refund is 43 USD."]))
    async with fake.serve() as base_url:
        agent = HttpAgent(base_url + "/v1", "fake-agent")
        try:
            reply = await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert (reply.text, reply.tool_calls) == ("Your refund is 43 USD.", ())
    assert [m.text for m in fake.requests[0].messages] == [m.text for m in HISTORY]


def test_completion_reply_with_null_content() -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": None}}]}
    assert completion_reply(json.dumps(body)).text == ""


def _setup() -> SessionSetup:
    persona = Persona(id="p", name="P", language="en")
    goal = Goal.model_validate(
        {
            "id": "g",
            "title": "G",
            "final_tool": "refund",
            "facts": [{"id": "r", "slot": "booking_ref", "value": "MB4T9R"}],
        }
    )
    key = SessionKey(persona="p", goal="g", mode="full", rep=0)
    return SessionSetup(key, persona, goal, Mode.FULL, 1, 2)

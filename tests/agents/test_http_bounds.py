"""What an HTTP target is read for: a byte limit, and redirects only where the suite says."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web

from simlab.agents import EndpointRules, HttpAgent, HttpAgentError, HttpSession, body_limit
from simlab.core import Knobs, Message, SessionContext
from simlab.spec import OutputLimits

CTX = SessionContext("p/g/full/0", 1, 1, Knobs())
HISTORY = [Message(role="user", text="hello")]
KEY = "sk-test-redirect-0123456789"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # aiohttp's server and client


def completion(text: str) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": text}}]}


@asynccontextmanager
async def serve(handler: Handler, host: str = "127.0.0.1") -> AsyncIterator[tuple[str, list[Any]]]:
    seen: list[Any] = []

    async def route(request: web.Request) -> web.StreamResponse:
        seen.append((request.method, dict(request.headers), await request.read()))
        return await handler(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", route)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://{host}:{port}", seen
    finally:
        await runner.cleanup()


def agent(url: str, rules: EndpointRules | None = None, **kw: Any) -> HttpAgent:
    return HttpAgent(url, session=HttpSession(rules), **kw)


def test_the_body_limit_follows_the_suite_limits() -> None:
    assert body_limit(OutputLimits()) == 4 << 20  # the floor
    big = OutputLimits(reply_chars=1_000_000)
    assert body_limit(big) == 16 * (1_000_000 + 3 * 20_000)


async def test_a_claimed_10_gb_answer_is_refused_before_its_body_is_read() -> None:
    async def huge(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        resp.content_length = 10 * 10**9
        await resp.prepare(request)
        chunk = b" " * (1 << 20)
        for _ in range(10_000):  # as fast as it can, until the client hangs up
            await resp.write(chunk)
        return resp

    async with serve(huge) as (url, _):
        started = time.perf_counter()
        with pytest.raises(HttpAgentError, match=r"10,000,000,000 bytes \(Content-Length\)"):
            await agent(url).reply(HISTORY, CTX)
        assert time.perf_counter() - started < 5


async def test_an_answer_streamed_past_the_limit_is_cut_off_unread() -> None:
    async def lies(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse()  # chunked: no length said
        await resp.prepare(request)
        with_headroom = json.dumps(completion("x" * 3_000_000)).encode()
        await resp.write(with_headroom)
        return resp

    async with serve(lies) as (url, _):
        with pytest.raises(HttpAgentError, match="over the 1,000,000 bytes simlab reads"):
            await agent(url, EndpointRules(max_body_bytes=1_000_000)).reply(HISTORY, CTX)
        reply = await agent(url, EndpointRules(max_body_bytes=4_000_000)).reply(HISTORY, CTX)
        assert len(reply.text) == 3_000_000


async def test_a_redirect_to_another_host_is_refused_and_the_conversation_not_resent() -> None:
    async def other_host(request: web.Request) -> web.StreamResponse:
        return web.json_response(completion("from elsewhere"))

    async with serve(other_host, host="localhost") as (elsewhere, seen_there):

        async def moved(request: web.Request) -> web.StreamResponse:
            raise web.HTTPTemporaryRedirect(f"{elsewhere}/chat/completions")

        async with serve(moved) as (url, seen):
            with pytest.raises(HttpAgentError, match=r"target\.redirect_hosts") as refused:
                await agent(url, api_key_env="SIMLAB_TEST_KEY").reply(HISTORY, CTX)
            assert "localhost" in str(refused.value)
            assert len(seen) == 1 and seen_there == []

            allowed = EndpointRules(redirect_hosts=("localhost",))
            reply = await agent(url, allowed, api_key_env="SIMLAB_TEST_KEY").reply(HISTORY, CTX)
            assert reply.text == "from elsewhere"
            method, headers, body = seen_there[0]
            assert method == "POST" and json.loads(body)["messages"][0]["content"] == "hello"
            assert "Authorization" not in headers  # a key stays with its host


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMLAB_TEST_KEY", KEY)


async def test_a_redirect_on_the_same_host_is_followed_with_the_key() -> None:
    async def route(request: web.Request) -> web.StreamResponse:
        if request.path == "/old/chat/completions":
            raise web.HTTPPermanentRedirect("/new/chat/completions")
        return web.json_response(completion("moved in"))

    async with serve(route) as (url, seen):
        reply = await agent(f"{url}/old", api_key_env="SIMLAB_TEST_KEY").reply(HISTORY, CTX)
        assert reply.text == "moved in"
        assert [s[1].get("Authorization") for s in seen] == [f"Bearer {KEY}"] * 2


async def test_malformed_and_deep_json_and_a_slow_loris_are_agent_errors() -> None:
    async def malformed(request: web.Request) -> web.StreamResponse:
        return web.Response(text='{"choices": [', content_type="application/json")

    async def deep(request: web.Request) -> web.StreamResponse:
        return web.Response(text="[" * 5000 + "]" * 5000, content_type="application/json")

    async def slow(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse()
        await resp.prepare(request)
        for _ in range(100):
            await resp.write(b" ")
            await asyncio.sleep(0.1)
        return resp

    for handler, match in ((malformed, "no choices"), (deep, "no choices"), (slow, "no answer")):
        async with serve(handler) as (url, _):
            with pytest.raises(HttpAgentError, match=match):
                await agent(url, timeout_s=0.5).reply(HISTORY, CTX)

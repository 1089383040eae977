"""The fake provider: an aiohttp server on loopback speaking Anthropic and OpenAI."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import replace
from typing import Any, Literal

import anyio.to_thread
from aiohttp import web

from simlab.testing._cache import PromptCache
from simlab.testing._config import FakeProviderConfig, FaultKind
from simlab.testing._draws import RequestDrawer
from simlab.testing._reply import chosen
from simlab.testing._request import (
    Api,
    FakeRequest,
    RequestError,
    parse_anthropic,
    parse_openai,
)
from simlab.testing._responders import Responder, default_responder
from simlab.testing._responses_api import parse_responses, responses_body, responses_events
from simlab.testing._stats import FakeProviderStats, StatsCounter
from simlab.testing._stream import anthropic_events, openai_chunks
from simlab.testing._wire import (
    ErrorKind,
    anthropic_message,
    complete,
    error_body,
    malformed_body,
    openai_completion,
)

_log = logging.getLogger(__name__)

Endpoint = Literal["messages", "chat", "responses"]
"""Anthropic Messages, OpenAI chat completions, OpenAI Responses."""

_APIS: dict[Endpoint, Api] = {"messages": "anthropic", "chat": "openai", "responses": "openai"}
_PARSERS: dict[Endpoint, Callable[[dict[str, Any], int], FakeRequest]] = {
    "messages": parse_anthropic,
    "chat": parse_openai,
    "responses": parse_responses,
}
_BODIES = {
    "messages": anthropic_message,
    "chat": openai_completion,
    "responses": responses_body,
}
_STREAMS = {
    "messages": anthropic_events,
    "chat": openai_chunks,
    "responses": responses_events,
}
_BACKLOG = 4096
"""Connections the listening socket queues before they are accepted (aiohttp's default
is 128; the kernel caps it at ``net.core.somaxconn``). A client starting 256 sessions
opens 256 connections at once: with 128, the kernel dropped the rest's handshakes
and each waited for a SYN retransmit, a second later (``bench/llm_sessions.py``)
-- a delay a real API's load balancers do not add."""
_FAULT_ERRORS: dict[FaultKind, ErrorKind] = {
    "rate_limit": "rate_limit",
    "overloaded": "overloaded",
    "server_error": "server_error",
}


def _base_url(address: Any) -> str:
    host, port = address[0], address[1]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class FakeProvider:
    """A fake LLM provider for tests and benchmarks, served on loopback over real HTTP.

    Endpoints: ``POST /v1/messages`` and ``/v1/messages/count_tokens``
    (Anthropic), ``POST /v1/chat/completions`` and ``/v1/responses`` (OpenAI,
    also without ``/v1``; point an OpenAI client at ``base_url + "/v1"``),
    ``GET /v1/models``, ``GET /healthz``, ``GET /stats``. Completions stream
    (``stream: true``) as server-sent events; offered
    ``tools`` are called natively when the responder answers with a
    ``FakeReply`` or ``tool_choice`` forces a call.

    State (counters, the prompt cache, the request history, the arrival index
    that seeds fault draws) lives on this object and survives restarts of
    ``serve``; ``reset()`` clears it. Request headers are never stored: the
    API key is only checked for presence when ``require_api_key`` is set.

    Example::

        fake = FakeProvider(FakeProviderConfig(latency_ms=5), scripted(["hi"]))
        async with fake.serve() as base_url:
            client = AsyncAnthropic(base_url=base_url, api_key="test", max_retries=0)
    """

    def __init__(
        self, config: FakeProviderConfig | None = None, responder: Responder | None = None
    ) -> None:
        """Configure the server; nothing is bound until ``serve``.

        Args:
            config: Latency, faults, cache; defaults to a fast, faultless server.
            responder: What the assistant says; defaults to ``default_responder``.
        """
        self._config = config or FakeProviderConfig()
        self._responder: Responder = responder or default_responder
        self._drawer = RequestDrawer(self._config)
        self._counter = StatsCounter()
        self._cache = PromptCache(self._config.cache_max_entries, self._config.cache_min_tokens)
        self._history: deque[FakeRequest] = deque(maxlen=self._config.history_size)
        self._serving = threading.Lock()
        self._stopping: asyncio.Event | None = None

    @property
    def config(self) -> FakeProviderConfig:
        """The configuration this server was built with."""
        return self._config

    def stats(self) -> FakeProviderStats:
        """A snapshot of the counters (safe from any thread)."""
        return self._counter.snapshot()

    @property
    def requests(self) -> tuple[FakeRequest, ...]:
        """The most recent well-formed requests, oldest first (``history_size`` kept)."""
        return tuple(self._history)

    def reset(self) -> None:
        """Zero the counters and arrival index; forget the cache and the history."""
        self._counter.reset()
        self._cache.clear()
        self._history.clear()

    @asynccontextmanager
    async def serve(self, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
        """Serve on ``host:port`` (0 = ephemeral) for the duration of the block.

        Runs in the caller's event loop under asyncio; under another anyio backend
        (trio) it falls back to a server thread with its own loop.

        Yields:
            The base URL, e.g. ``"http://127.0.0.1:41873"`` (no trailing slash).

        Raises:
            RuntimeError: if this provider is already serving.
            OSError: if the address cannot be bound.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            server = _ThreadServer(self, host, port)
            url = await anyio.to_thread.run_sync(server.start)
            try:
                yield url
            finally:
                await anyio.to_thread.run_sync(server.stop)
            return
        if not self._serving.acquire(blocking=False):
            raise RuntimeError("this FakeProvider is already serving")
        self._stopping = asyncio.Event()
        runner = web.AppRunner(
            self._app(),
            access_log=None,
            handler_cancellation=True,  # a client that gives up frees its handler
            shutdown_timeout=1.0,
        )
        try:
            await runner.setup()
            await web.TCPSite(runner, host, port, backlog=_BACKLOG).start()
            yield _base_url(runner.addresses[0])
        finally:
            self._stopping.set()  # wakes hanging `timeout` faults
            await runner.cleanup()
            self._serving.release()

    @contextmanager
    def serve_in_thread(self, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
        """Serve from a background thread with its own event loop, for sync code.

        Yields:
            The base URL.

        Raises:
            RuntimeError: if this provider is already serving.
            OSError: if the address cannot be bound.
        """
        server = _ThreadServer(self, host, port)
        url = server.start()
        try:
            yield url
        finally:
            server.stop()

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=32 * 1024**2)
        app.router.add_post("/v1/messages", self._route("messages"))
        app.router.add_post("/v1/messages/count_tokens", self._count_tokens)
        app.router.add_post("/v1/chat/completions", self._route("chat"))
        app.router.add_post("/chat/completions", self._route("chat"))
        app.router.add_post("/v1/responses", self._route("responses"))
        app.router.add_post("/responses", self._route("responses"))
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/stats", self._stats)
        return app

    def _route(self, endpoint: Endpoint) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            return await self._handle(request, endpoint)

        return handler

    async def _count_tokens(self, request: web.Request) -> web.StreamResponse:
        """Anthropic ``count_tokens``: the prompt's tokens by the fake tokenizer, no answer."""
        parsed = await self._parse(request, "anthropic", _count_tokens_parser)
        if isinstance(parsed, web.Response):
            return parsed
        return web.json_response({"input_tokens": parsed.input_tokens})

    async def _healthz(self, _request: web.Request) -> web.StreamResponse:
        return web.json_response({"status": "ok"})

    async def _stats(self, _request: web.Request) -> web.StreamResponse:
        return web.json_response(self.stats().to_dict())

    async def _models(self, _request: web.Request) -> web.StreamResponse:
        model = {"id": "fake-model", "object": "model", "created": 0, "owned_by": "simlab"}
        return web.json_response({"object": "list", "data": [model]})

    def _error(
        self, api: Api, kind: ErrorKind, message: str, request_id: str, **headers: str
    ) -> web.Response:
        status, body = error_body(api, kind, message, request_id)
        return web.json_response(body, status=status, headers=headers or None)

    async def _parse(
        self,
        request: web.Request,
        api: Api,
        parser: Callable[[dict[str, Any], int], FakeRequest],
    ) -> FakeRequest | web.Response:
        """The parsed request, or the 400/401 the real provider would answer."""
        # Presence only: the header values are never read into anything kept.
        if self._config.require_api_key and not (
            "x-api-key" in request.headers or "authorization" in request.headers
        ):
            self._counter.bad_request()
            return self._error(api, "authentication", "missing API key (x-api-key)", "bad")
        try:
            body = json.loads(await request.read())
            if not isinstance(body, dict):
                raise RequestError("body must be a JSON object")
            return parser(body, -1)
        except (ValueError, RequestError) as exc:  # JSONDecodeError is a ValueError
            self._counter.bad_request()
            return self._error(api, "invalid_request", str(exc), "bad")

    async def _handle(self, request: web.Request, endpoint: Endpoint) -> web.StreamResponse:
        api = _APIS[endpoint]
        parsed = await self._parse(request, api, _PARSERS[endpoint])
        if isinstance(parsed, web.Response):
            return parsed
        index = self._counter.start(api)
        try:
            parsed = replace(parsed, index=index)
            self._history.append(parsed)
            return await self._answer(request, parsed, endpoint)
        finally:
            self._counter.finish()

    async def _answer(
        self, request: web.Request, parsed: FakeRequest, endpoint: Endpoint
    ) -> web.StreamResponse:
        draw = self._drawer.draw(parsed.index)
        request_id = f"fake{parsed.index:012d}"
        if draw.delay_s > 0:
            await asyncio.sleep(draw.delay_s)
        if draw.fault is not None:
            self._counter.fault(draw.fault)
            return await self._fault(request, parsed, draw.fault, request_id)
        try:
            reply = chosen(parsed, self._responder(parsed))
        except Exception as exc:  # a broken responder is the test author's bug: say so
            _log.exception("fake provider responder failed")
            message = f"responder failed: {type(exc).__name__}: {exc}"
            return self._error(parsed.api, "server_error", message, request_id)
        done = complete(parsed, reply, request_id)
        usage = self._cache.account(parsed)
        self._counter.success(
            usage.uncached + usage.cache_read + usage.cache_creation,
            done.output_tokens,
            usage.cache_read,
            usage.cache_creation if parsed.api == "anthropic" else 0,
        )
        headers = _id_header(parsed.api, request_id)
        if parsed.stream:
            events = _STREAMS[endpoint](parsed, done, usage, request_id)
            stream = _event_stream(headers)
            await stream.prepare(request)
            with suppress(ConnectionResetError):  # a client may stop reading mid-stream
                for event in events:
                    await stream.write(event)
                await stream.write_eof()
            return stream
        body = _BODIES[endpoint](parsed, done, usage, request_id)
        return web.json_response(body, headers=headers)

    async def _fault(
        self, request: web.Request, parsed: FakeRequest, kind: FaultKind, request_id: str
    ) -> web.StreamResponse:
        api = parsed.api
        if kind == "malformed" and parsed.stream:
            # a stream whose connection breaks inside its first event
            stream = _event_stream(_id_header(api, request_id))
            await stream.prepare(request)
            await stream.write(b'event: message_start\ndata: {"type": "mess')
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        if kind == "malformed":
            return web.Response(body=malformed_body(api), content_type="application/json")
        if kind in ("timeout", "dropped"):
            if kind == "timeout" and self._stopping is not None:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), self._config.timeout_hang_s)
            if request.transport is not None:
                request.transport.abort()
            # Unwinds the handler without writing a response to the dead socket.
            raise asyncio.CancelledError
        retry_after = self._config.retry_after_s
        headers = {}
        if kind == "rate_limit":
            headers = {
                "retry-after": f"{retry_after:g}",
                "retry-after-ms": f"{retry_after * 1000:g}",
            }
        message = {
            "rate_limit": "Number of requests has exceeded your rate limit (simulated).",
            "overloaded": "Overloaded (simulated).",
            "server_error": "Internal server error (simulated).",
        }[kind]
        return self._error(api, _FAULT_ERRORS[kind], message, request_id, **headers)


def _count_tokens_parser(body: dict[str, Any], index: int) -> FakeRequest:
    return parse_anthropic(body, index, needs_max_tokens=False)


def _id_header(api: Api, request_id: str) -> dict[str, str]:
    if api == "anthropic":
        return {"request-id": f"req_{request_id}"}
    return {"x-request-id": request_id}


def _event_stream(headers: dict[str, str]) -> web.StreamResponse:
    stream = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **headers}
    )
    stream.enable_chunked_encoding()
    return stream


class _ThreadServer:
    """Runs ``FakeProvider.serve`` in a daemon thread with its own asyncio loop."""

    def __init__(self, provider: FakeProvider, host: str, port: int) -> None:
        self._provider = provider
        self._host = host
        self._port = port
        self._ready = threading.Event()
        self._url = ""
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="simlab-fake-provider", daemon=True)

    def start(self) -> str:
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error
        return self._url

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with self._provider.serve(self._host, self._port) as url:
                self._url = url
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # handed to the caller's thread, not lost
            self._error = exc
        finally:
            self._ready.set()

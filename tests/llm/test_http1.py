"""simlab's HTTP/1.1 client: against the fake provider on loopback, and against a raw
socket server that answers in the shapes real servers use (chunks, split packets,
a closing connection, compression)."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import pytest

import simlab.llm._http1 as http1
from simlab.llm import LLMMessage, LLMRequest, LLMSpec
from simlab.llm._anthropic import AnthropicLLM
from simlab.llm._errors import MalformedResponseError, ProviderConnectionError, ProviderTimeoutError
from simlab.llm._http1 import Http1Transport
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

BODY = {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}
HEADERS = {"x-api-key": "test", "anthropic-version": "2023-06-01"}


async def test_round_trip_with_the_fake_provider_and_connections_reused() -> None:
    fake = FakeProvider(responder=scripted(["Sure thing."]))
    transport = Http1Transport(max_connections=4, timeout_s=10)
    async with fake.serve() as base_url:
        replies = [
            await transport.post_json(base_url + "/v1/messages", BODY, HEADERS) for _ in range(5)
        ]
        opened = transport.open_connections
        await transport.aclose()
    status, headers, body = replies[0]
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert headers["request-id"] == "req_fake000000000000"
    assert json.loads(body)["content"][0]["text"] == "Sure thing."
    assert len({json.loads(b)["id"] for _, _, b in replies}) == 5
    assert opened == 1  # one after another: the one keep-alive connection serves them all
    assert fake.stats().requests == 5


async def test_at_most_max_connections_open_and_every_call_answered() -> None:
    fake = FakeProvider(FakeProviderConfig(latency_ms=50), scripted(["ok"]))
    transport = Http1Transport(max_connections=3, timeout_s=10)
    most = [0]
    statuses: list[int] = []

    async def call(url: str) -> None:
        status, _, _ = await transport.post_json(url, BODY, HEADERS)
        statuses.append(status)
        most[0] = max(most[0], transport.open_connections)

    async with fake.serve() as base_url:
        async with anyio.create_task_group() as tg:
            for _ in range(12):
                tg.start_soon(call, base_url + "/v1/messages")
        await transport.aclose()
    assert statuses == [200] * 12
    assert most[0] == 3  # 12 at once through 3 connections, none more
    assert fake.stats().requests == 12


async def test_the_anthropic_backend_posts_through_it() -> None:
    fake = FakeProvider(responder=scripted(["Hello there."]))
    async with fake.serve() as base_url:
        llm = AnthropicLLM(LLMSpec(backend="anthropic", base_url=base_url, concurrency=2))
        req = LLMRequest(messages=(LLMMessage(role="user", content="hi"),), role="user")
        resp = await llm.complete(req)
        assert isinstance(llm._transport, Http1Transport)
        await llm.aclose()
    assert resp.text == "Hello there." and resp.usage.output_tokens > 0
    assert fake.requests[0].api == "anthropic"


async def test_a_dropped_connection_is_a_connection_error_and_its_slot_comes_back() -> None:
    config = FakeProviderConfig(fault_sequence=("dropped",))
    fake = FakeProvider(config, scripted(["ok"]))
    transport = Http1Transport(max_connections=1, timeout_s=10)
    async with fake.serve() as base_url:
        with pytest.raises(ProviderConnectionError):
            await transport.post_json(base_url + "/v1/messages", BODY, HEADERS)
        status, _, _ = await transport.post_json(base_url + "/v1/messages", BODY, HEADERS)
        await transport.aclose()
    assert status == 200


async def test_no_answer_in_time_is_a_timeout_and_the_slot_comes_back() -> None:
    config = FakeProviderConfig(fault_sequence=("timeout",), timeout_hang_s=30)
    fake = FakeProvider(config, scripted(["ok"]))
    # 2 s, not less: the second call connects afresh within the same budget, and a
    # loaded CI machine once took more than 0.5 s to connect on loopback.
    transport = Http1Transport(max_connections=1, timeout_s=2)
    async with fake.serve() as base_url:
        with pytest.raises(ProviderTimeoutError):
            await transport.post_json(base_url + "/v1/messages", BODY, HEADERS)
        status, _, _ = await transport.post_json(base_url + "/v1/messages", BODY, HEADERS)
        await transport.aclose()
    assert status == 200


async def test_a_cancelled_call_frees_its_connection() -> None:
    fake = FakeProvider(FakeProviderConfig(latency_ms=2000), scripted(["ok"]))
    transport = Http1Transport(max_connections=1, timeout_s=10)
    async with fake.serve() as base_url:
        with anyio.move_on_after(0.2):
            await transport.post_json(base_url + "/v1/messages", BODY, HEADERS)
        await asyncio.sleep(0.05)  # the aborted connection reports its loss
        assert transport.open_connections == 0
        await transport.aclose()


# A raw server: each connection gets the next scripted answer per request, written
# in the pieces given (so a test controls how the bytes are split).

Answer = list[bytes]


@asynccontextmanager
async def raw_server(answers: Callable[[int], Answer]) -> AsyncIterator[tuple[str, list[bytes]]]:
    seen: list[bytes] = []
    count = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                seen.append(head + await reader.readexactly(length))
                pieces = answers(count[0])
                count[0] += 1
                for piece in pieces:
                    if piece == b"<close>":
                        writer.close()
                        return
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0.01)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1/messages", seen
    finally:
        server.close()


def _plain(body: bytes, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{extra}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def test_the_request_bytes_on_the_wire() -> None:
    async with raw_server(lambda i: [_plain(b"{}")]) as (url, seen):
        transport = Http1Transport(max_connections=1, timeout_s=5)
        await transport.post_bytes(url, b'{"a": 1}', {"x-api-key": "k", "content-type": "j"})
        await transport.aclose()
    head, _, body = seen[0].partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/messages HTTP/1.1"
    assert {line.split(": ")[0] for line in lines[1:]} == {
        "host",
        "x-api-key",
        "content-type",
        "accept",
        "content-length",
    }
    assert "content-length: 8" in lines and body == b'{"a": 1}'


async def test_a_response_split_anywhere_is_read_whole() -> None:
    whole = _plain(b'{"text": "' + b"x" * 5000 + b'"}', "X-Thing: a: b\r\n")
    pieces = [whole[:7], whole[7:40], whole[40:41], whole[41:3000], whole[3000:]]
    async with raw_server(lambda i: pieces) as (url, _):
        transport = Http1Transport(max_connections=1, timeout_s=5)
        status, headers, body = await transport.post_bytes(url, b"{}", {})
        again = await transport.post_bytes(url, b"{}", {})
        await transport.aclose()
    assert status == 200 and headers["x-thing"] == "a: b"
    assert json.loads(body)["text"] == "x" * 5000 and again[2] == body


async def test_a_chunked_response_with_trailers() -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunks = [b"5;ext=1\r\nhello\r\n", b"1", b"\r\n \r\nA\r\n", b"0123456789\r\n", b"0\r\n"]
    tail = [b"X-Trailer: 1\r\n", b"\r\n"]
    async with raw_server(lambda i: [head, *chunks, *tail]) as (url, _):
        transport = Http1Transport(max_connections=1, timeout_s=5)
        status, _, body = await transport.post_bytes(url, b"{}", {})
        status2, _, body2 = await transport.post_bytes(url, b"{}", {})
        opened = transport.open_connections
        await transport.aclose()
    assert (status, body) == (200, b"hello 0123456789")
    assert (status2, body2) == (200, body) and opened == 1  # the connection was kept


async def test_connection_close_and_a_body_up_to_the_close() -> None:
    def answers(i: int) -> Answer:
        if i == 0:
            return [_plain(b'{"n": 0}', "Connection: close\r\n"), b"<close>"]
        return [b"HTTP/1.1 200 OK\r\n\r\n", b'{"n": 1}', b"<close>"]

    async with raw_server(answers) as (url, seen):
        transport = Http1Transport(max_connections=1, timeout_s=5)
        first = await transport.post_bytes(url, b"{}", {})
        second = await transport.post_bytes(url, b"{}", {})
        await transport.aclose()
    assert json.loads(first[2]) == {"n": 0} and json.loads(second[2]) == {"n": 1}
    assert len(seen) == 2


async def test_a_gzipped_body_is_undone_and_garbage_is_a_connection_error() -> None:
    packed = gzip.compress(b'{"ok": true}')
    replies = [[_plain(packed, "Content-Encoding: gzip\r\n")], [b"SSH-2.0-not-http\r\n\r\n"]]
    async with raw_server(lambda i: replies[i]) as (url, _):
        transport = Http1Transport(max_connections=1, timeout_s=5)
        _, _, body = await transport.post_bytes(url, b"{}", {})
        with pytest.raises(ProviderConnectionError, match="not an HTTP response"):
            await transport.post_bytes(url, b"{}", {})
        await transport.aclose()
    assert json.loads(body) == {"ok": True}


async def test_nothing_listening_is_a_connection_error() -> None:
    async with raw_server(lambda i: []) as (url, _):
        pass  # closed again: the port is free
    transport = Http1Transport(max_connections=1, timeout_s=5)
    with pytest.raises(ProviderConnectionError, match="failed"):
        await transport.post_bytes(url, b"{}", {})
    assert transport.open_connections == 0


async def test_a_body_over_the_limit_is_refused_said_or_streamed_or_inflated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http1, "MAX_BODY_BYTES", 100_000)
    claimed = b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n" + b"x" * 1000
    chunked = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"]
    chunked += [b"10000\r\n" + b"y" * 0x10000 + b"\r\n"] * 4
    to_close = [b"HTTP/1.1 200 OK\r\n\r\n"] + [b"z" * 60_000] * 4
    bomb = gzip.compress(b" " * 5_000_000)  # about 5 KB on the wire
    inflating = [_plain(bomb, "Content-Encoding: gzip\r\n")]
    for answer, said in (
        ([claimed], "10,000,000,000 bytes (Content-Length)"),
        (chunked, "over the 100,000"),
        (to_close, "over the 100,000"),
        (inflating, "inflating past the 100,000"),
    ):
        async with raw_server(lambda i, a=answer: a) as (url, _):  # type: ignore[misc]
            transport = Http1Transport(max_connections=1, timeout_s=5)
            with pytest.raises(MalformedResponseError, match=re.escape(said)):
                await transport.post_bytes(url, b"{}", {})
            await transport.aclose()

"""A lean HTTP/1.1 client for JSON POSTs: the default transport of simlab's LLM backends.

aiohttp's client spends about 250 us of CPU on each request for machinery a
JSON POST to an LLM API does not use (a cookie jar, tracing hooks, multidict
headers, a stream reader and response objects): with 256 sessions running
against the fake provider that was a quarter of the client's CPU
(``bench/llm_sessions.py``'s profile), and on a shared 2-core machine every
CPU-millisecond the client spends is latency its calls wait. This client keeps
one ``asyncio.Protocol`` per connection and a keep-alive pool per origin (at most
``max_connections`` open), writes each request in one write, and reads the
response's status line and headers with ``bytes.find``: the body is
``Content-Length`` bytes, chunks (``Transfer-Encoding: chunked``) or everything
up to the close. It asks for no compression and undoes gzip or deflate should
a server send it anyway. TLS for ``https`` URLs; no proxies (as aiohttp without
``trust_env``).
"""

from __future__ import annotations

import asyncio
import json
import ssl
import zlib
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from simlab.llm._errors import (
    MalformedResponseError,
    ProviderConnectionError,
    ProviderTimeoutError,
)
from simlab.llm._transport import Reply, Transport

_MAX_HEAD = 64 * 1024
"""The most bytes a response's status line and headers may take."""
MAX_BODY_BYTES = 32 << 20
"""The most bytes of one response body read (after undoing compression): an LLM
API answers in kilobytes, and a broken or hostile server must not fill memory."""
_IDLE_S = 15.0
"""A pooled connection idle longer than this is closed rather than reused (aiohttp's
keep-alive default): a server may have closed it meanwhile."""

Origin = tuple[str, str, int]


class _BadResponse(Exception):
    """The bytes received are not an HTTP/1.x response."""


class _TooLarge(_BadResponse):
    """The response's body is (or says it is) over ``MAX_BODY_BYTES``."""


def _too_large(size: int, said: bool = False) -> _TooLarge:
    how = " (Content-Length)" if said else ""
    return _TooLarge(f"a body of {size:,} bytes{how}, over the {MAX_BODY_BYTES:,} simlab reads")


class _Connection(asyncio.Protocol):
    """One keep-alive connection: sends a request, parses its response.

    ``waiter`` is the pending response's future: set to ``(status, headers,
    body)`` when the whole body is in, or to a ``ProviderConnectionError`` when
    the connection drops or the bytes are not HTTP.
    """

    def __init__(self, pool: Http1Transport, origin: Origin) -> None:
        self.pool = pool
        self.origin = origin
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future[Reply] | None = None
        self.closed = False
        self.reusable = True
        self.idle_since = 0.0
        self._buf = bytearray()
        self._reset()

    def _reset(self) -> None:
        self._status = 0
        self._headers: dict[str, str] | None = None
        self._length: int | None = None
        self._chunked = False
        self._body = bytearray()
        self._trailers = False

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():
            # bytes nobody asked for (an unsolicited response): the stream is unusable
            self._fail(_BadResponse("unexpected bytes between responses"))
            return
        self._buf += data
        try:
            self._parse()
        except (_BadResponse, ValueError) as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        self.reusable = False
        if self._headers is not None and not self._chunked and self._length is None:
            self._finish(bytes(self._buf))  # a body that runs to the close
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.reusable = False
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            reason = f": {type(exc).__name__}" if exc is not None else ""
            waiter.set_exception(
                ProviderConnectionError(f"the server closed the connection mid-response{reason}")
            )
        self.pool._lost(self)

    # requests

    def send(self, data: bytes, waiter: asyncio.Future[Reply]) -> None:
        """Write one request; ``waiter`` gets its response."""
        assert self.transport is not None
        self.waiter = waiter
        self._reset()
        self._buf.clear()
        self.transport.write(data)

    def close(self) -> None:
        """Drop the connection at once (a request cut short leaves it mid-stream)."""
        self.reusable = False
        if self.transport is not None:
            self.transport.abort()

    def _fail(self, exc: Exception) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            if isinstance(exc, _TooLarge):
                waiter.set_exception(MalformedResponseError(f"refused: {exc}"))
            else:
                waiter.set_exception(ProviderConnectionError(f"not an HTTP response: {exc}"))
        self.close()

    def _finish(self, body: bytes) -> None:
        waiter, headers = self.waiter, self._headers
        assert headers is not None
        if waiter is not None and not waiter.done():
            waiter.set_result((self._status, headers, body))

    def _parse(self) -> None:
        buf = self._buf
        while self._headers is None:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > _MAX_HEAD:
                    raise _BadResponse(f"no end of headers in {len(buf):,} bytes")
                return
            self._read_head(bytes(buf[:end]).decode("latin-1"))
            del buf[: end + 4]
        if len(buf) + len(self._body) > MAX_BODY_BYTES + _MAX_HEAD:  # chunks or to the close
            raise _too_large(len(buf) + len(self._body))
        if self._chunked:
            self._read_chunks()
        elif self._length is not None and len(buf) >= self._length:
            if len(buf) > self._length:  # more than the response: do not trust the rest
                self.reusable = False
            self._finish(bytes(buf[: self._length]))
            buf.clear()

    def _read_head(self, head: str) -> None:
        lines = head.split("\r\n")
        version, _, rest = lines[0].partition(" ")
        if not version.startswith("HTTP/1."):
            raise _BadResponse(f"status line {lines[0][:60]!r}")
        status = int(rest[:3])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon:
                raise _BadResponse(f"header line {line[:60]!r}")
            headers[name.strip().lower()] = value.strip()
        if 100 <= status < 200:
            return  # an interim response (100 Continue): the real one follows
        self._status, self._headers = status, headers
        connection = headers.get("connection", "").lower()
        if "close" in connection or (version == "HTTP/1.0" and "keep-alive" not in connection):
            self.reusable = False
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self._chunked = True
        elif status in (204, 304):
            self._length = 0
        elif "content-length" in headers:
            self._length = int(headers["content-length"])
            if self._length < 0:
                raise _BadResponse("negative content-length")
            if self._length > MAX_BODY_BYTES:
                raise _too_large(self._length, said=True)
        else:
            self.reusable = False  # the body ends with the connection

    def _read_chunks(self) -> None:
        buf = self._buf
        while True:
            eol = buf.find(b"\r\n")
            if eol < 0:
                return
            if self._trailers:  # after the last chunk: trailer lines, then an empty one
                del buf[: eol + 2]
                if eol == 0:
                    if buf:
                        self.reusable = False
                    self._finish(bytes(self._body))
                    return
                continue
            size = int(bytes(buf[:eol]).split(b";", 1)[0].strip(), 16)
            if size == 0:
                del buf[: eol + 2]
                self._trailers = True
                continue
            start, stop = eol + 2, eol + 2 + size
            if len(buf) < stop + 2:
                return
            if buf[stop : stop + 2] != b"\r\n":
                raise _BadResponse("chunk not followed by CRLF")
            self._body += buf[start:stop]
            del buf[: stop + 2]


class _Target:
    """What one URL's requests share: the pool key, and the request's first lines."""

    __slots__ = ("head", "origin", "url")

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProviderConnectionError(f"cannot post to {url!r}: not an http(s) URL")
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        self.url = url
        self.origin: Origin = (parts.scheme, parts.hostname, port)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.netloc.rpartition("@")[2]
        self.head = f"POST {path} HTTP/1.1\r\nhost: {host}\r\n"


class Http1Transport(Transport):
    """Keep-alive HTTP/1.1 POSTs over asyncio, at most ``max_connections`` open.

    Args:
        max_connections: Connections open at once (busy and idle); a request
            finding none free waits for one.
        timeout_s: The most one request may take, connecting included.
    """

    def __init__(self, *, max_connections: int, timeout_s: float) -> None:
        self._limit = max(1, max_connections)
        self._timeout = timeout_s
        self._open = 0
        self._idle: dict[Origin, list[_Connection]] = {}
        self._waiters: deque[asyncio.Future[_Connection | None]] = deque()
        self._targets: dict[str, _Target] = {}
        self._ssl: ssl.SSLContext | None = None

    @property
    def open_connections(self) -> int:
        """Connections open now, busy and idle."""
        return self._open

    async def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        content = json.dumps(body).encode()
        return await self.post_bytes(url, content, {**headers, "content-type": "application/json"})

    async def post_bytes(self, url: str, content: bytes, headers: dict[str, str]) -> Reply:
        target = self._targets.get(url)
        if target is None:
            target = self._targets[url] = _Target(url)
        lines = [target.head]
        lines.extend(f"{k}: {v}\r\n" for k, v in headers.items())
        lines.append(f"accept: application/json\r\ncontent-length: {len(content)}\r\n\r\n")
        request = "".join(lines).encode("latin-1") + content
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout
        conn = await self._acquire(target, loop, deadline)
        waiter: asyncio.Future[Reply] = loop.create_future()
        timer = loop.call_at(deadline, _time_out, waiter)
        done = False
        try:
            conn.send(request, waiter)
            status, got, body = await waiter
            done = True
        except TimeoutError:
            raise ProviderTimeoutError(f"no answer from {url} in time") from None
        finally:
            timer.cancel()
            if not done:
                conn.close()  # mid-request: the stream is in an unknown state
            self._release(conn, loop)
        encoding = got.get("content-encoding", "identity").lower()
        if encoding in ("gzip", "deflate", "x-gzip"):
            try:
                body = _inflate(body, 47)  # zlib or gzip framing
            except zlib.error:
                body = _inflate(body, -15)  # raw deflate
        return status, got, body

    async def _acquire(
        self, target: _Target, loop: asyncio.AbstractEventLoop, deadline: float
    ) -> _Connection:
        idle = self._idle.get(target.origin)
        now = loop.time()
        while idle:
            conn = idle.pop()
            if conn.closed or not conn.reusable:
                continue
            if now - conn.idle_since > _IDLE_S:
                conn.close()
                continue
            return conn
        while self._open >= self._limit:
            waiter: asyncio.Future[_Connection | None] = loop.create_future()
            self._waiters.append(waiter)
            timer = loop.call_at(deadline, _time_out, waiter)
            try:
                handed = await waiter
            except TimeoutError:
                raise ProviderTimeoutError(
                    f"no connection to {target.url} free in time ({self._limit} busy)"
                ) from None
            except BaseException:  # cancelled: a connection handed over meanwhile goes back
                if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                    given = waiter.result()
                    if given is not None:
                        self._release(given, loop)
                    elif self._waiters:
                        self._wake(None)
                raise
            finally:
                timer.cancel()
            if handed is not None:
                if handed.origin == target.origin and handed.reusable and not handed.closed:
                    return handed
                handed.close()
        self._open += 1
        try:
            return await asyncio.wait_for(self._connect(target, loop), deadline - loop.time())
        except BaseException as exc:
            self._open -= 1
            self._wake(None)
            if isinstance(exc, TimeoutError):
                raise ProviderTimeoutError(f"no connection to {target.url} in time") from None
            if isinstance(exc, OSError):
                raise ProviderConnectionError(
                    f"connection to {target.url} failed: {type(exc).__name__}"
                ) from None
            raise

    async def _connect(self, target: _Target, loop: asyncio.AbstractEventLoop) -> _Connection:
        scheme, host, port = target.origin
        context: ssl.SSLContext | None = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
            context = self._ssl
        origin = target.origin
        _, conn = await loop.create_connection(
            lambda: _Connection(self, origin),
            host,
            port,
            ssl=context,
            server_hostname=host if context is not None else None,
        )
        return conn

    def _release(self, conn: _Connection, loop: asyncio.AbstractEventLoop) -> None:
        """A finished request's connection: to a waiter, to the idle pool, or closed."""
        conn.waiter = None
        if conn.closed or not conn.reusable:
            conn.close()  # its connection_lost frees the slot
            return
        if self._waiters:
            self._wake(conn)
            return
        conn.idle_since = loop.time()
        self._idle.setdefault(conn.origin, []).append(conn)

    def _wake(self, conn: _Connection | None) -> None:
        """Hand ``conn`` (None: a free slot) to the oldest waiter still waiting."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return
        if conn is not None:  # nobody waits any more
            conn.idle_since = asyncio.get_running_loop().time()
            self._idle.setdefault(conn.origin, []).append(conn)

    def _lost(self, conn: _Connection) -> None:
        """``conn`` closed: its slot is free."""
        self._open -= 1
        idle = self._idle.get(conn.origin)
        if idle and conn in idle:
            idle.remove(conn)
        self._wake(None)

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
        self._idle.clear()
        await asyncio.sleep(0)  # let the closed transports report connection_lost


def _time_out(waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


def _inflate(body: bytes, wbits: int) -> bytes:
    """``body`` decompressed, at most ``MAX_BODY_BYTES`` of it (a small body can inflate
    a thousandfold).

    Raises:
        MalformedResponseError: It inflates past the limit.
        zlib.error: It is not in that framing.
    """
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, MAX_BODY_BYTES)
    if inflater.unconsumed_tail:
        raise MalformedResponseError(
            f"refused: a compressed body inflating past the {MAX_BODY_BYTES:,} bytes simlab reads"
        )
    return out


def default_transport(*, max_connections: int, timeout_s: float) -> Transport:
    """The transport the LLM backends post with: simlab's own HTTP/1.1 client."""
    return Http1Transport(max_connections=max_connections, timeout_s=timeout_s)

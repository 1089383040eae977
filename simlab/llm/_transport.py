"""JSON-over-HTTP POST: the ``Transport`` seam of the LLM backends, and an httpx
implementation (tests hand it a client of their own).

The default is simlab's own HTTP/1.1 client (``_http1.default_transport``).
Measured here against a loopback server answering in 300 ms (2 cores, loaded
by a compile): aiohttp 179 calls/s at 64 concurrent and 442 at 256; httpx2 72
and 90; httpx 0.28 25 and 21. The HTTP stack is the bound at high
concurrency; simlab's own client needs about half aiohttp's CPU per call
(``bench/llm_sessions.py``'s docstring), so aiohttp's transport was dropped.
"""

from __future__ import annotations

import importlib.util
from abc import ABC, abstractmethod
from typing import Any

from simlab.llm._errors import ProviderConnectionError, ProviderTimeoutError

Reply = tuple[int, dict[str, str], bytes]


class Transport(ABC):
    """POSTs a JSON body and returns (status, lower-cased headers, body bytes).

    Implementations raise ``ProviderTimeoutError`` or ``ProviderConnectionError``
    for failures without a response.
    """

    @abstractmethod
    async def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """Send one request."""

    @abstractmethod
    async def post_bytes(self, url: str, content: bytes, headers: dict[str, str]) -> Reply:
        """Send one request whose body is already encoded (``headers`` name its type)."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close pooled connections."""


class HttpxTransport(Transport):
    """An httpx-compatible ``AsyncClient`` (``httpx2`` or ``httpx``; tests pass a mock)."""

    def __init__(self, client: Any, http_module: Any) -> None:
        self._client = client
        self._http = http_module

    @classmethod
    def build(cls, *, max_connections: int, timeout_s: float) -> HttpxTransport:
        """A pooled client from ``httpx2`` when installed, else ``httpx``."""
        name = "httpx2" if importlib.util.find_spec("httpx2") else "httpx"
        http = importlib.import_module(name)
        limits = http.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        )
        return cls(http.AsyncClient(timeout=timeout_s, limits=limits), http)

    async def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        return await self._post(url, headers, {"json": body})

    async def post_bytes(self, url: str, content: bytes, headers: dict[str, str]) -> Reply:
        return await self._post(url, headers, {"content": content})

    async def _post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        http = self._http
        try:
            resp = await self._client.post(url, headers=headers, **body)
            content = await resp.aread()
        except http.TimeoutException:
            raise ProviderTimeoutError(f"no answer from {url} in time") from None
        except http.TransportError as exc:
            raise ProviderConnectionError(
                f"connection to {url} failed: {type(exc).__name__}"
            ) from None
        return resp.status_code, {k.lower(): v for k, v in resp.headers.items()}, content

    async def aclose(self) -> None:
        await self._client.aclose()

"""A tiny aiohttp server on loopback for the HTTP adapters' tests: fixed routes, what it saw."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Handler = Callable[[web.Request, dict[str, Any]], web.Response]


@dataclass
class Seen:
    """What the server received."""

    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)


def _app(path: str, handler: Handler, seen: Seen) -> web.Application:
    async def route(request: web.Request) -> web.Response:
        body = await request.json()
        seen.paths.append(request.path)
        seen.headers.append(dict(request.headers))
        seen.bodies.append(body)
        return handler(request, body)

    app = web.Application()
    app.router.add_post(path, route)
    return app


@asynccontextmanager
async def serve(path: str, handler: Handler) -> AsyncIterator[tuple[str, Seen]]:
    """Serve ``handler`` at ``path`` in the running loop; yields the root URL and ``Seen``."""
    seen = Seen()
    runner = web.AppRunner(_app(path, handler, seen), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}", seen
    finally:
        await runner.cleanup()


@contextmanager
def serve_in_thread(path: str, handler: Handler) -> Iterator[tuple[str, Seen]]:
    """``serve`` on its own thread and loop, for a subprocess (``simlab run``) to call."""
    loop = asyncio.new_event_loop()
    ready: list[tuple[str, Seen]] = []
    started, stop = threading.Event(), asyncio.Event()

    async def main() -> None:
        async with serve(path, handler) as served:
            ready.append(served)
            started.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    started.wait(timeout=30)
    try:
        yield ready[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)
        loop.close()

"""LLM client concurrency against the fake provider: achieved calls/s vs the ideal.

The fake provider answers every call after a fixed latency, so with C calls in
flight the ideal rate is C / latency. Each client transport runs C workers that
each make ``--calls`` sequential Messages API calls; the ratio achieved/ideal
shows how much the HTTP stack (not the server) costs. The server runs in its own
process by default (``--server thread`` puts it in this process), so on a
2-core machine client and server each get roughly one core.

    python bench/llm_concurrency.py [--latency-ms 300] [--concurrency 64 256] [--calls 5]

Prints ratios, never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import httpx

from simlab.testing import FakeProvider, FakeProviderConfig

ROOT = Path(__file__).resolve().parents[1]
BODY = {
    "model": "fake-model",
    "max_tokens": 64,
    "system": "You are a helpful travel agent.",
    "messages": [{"role": "user", "content": "I need a one-way flight to Hanoi on Friday."}],
}
HEADERS = {"x-api-key": "bench", "anthropic-version": "2023-06-01"}

Call = Callable[[], Coroutine[Any, Any, None]]
ClientFactory = Callable[[str, int], AbstractAsyncContextManager[Call]]


@contextlib.asynccontextmanager
async def httpx_client(base_url: str, concurrency: int) -> Any:
    """httpx.AsyncClient with a pool as large as the concurrency (the default is 100)."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:

        async def call() -> None:
            response = await client.post("/v1/messages", json=BODY, headers=HEADERS)
            response.raise_for_status()
            response.json()

        yield call


@contextlib.asynccontextmanager
async def aiohttp_client(base_url: str, concurrency: int) -> Any:
    """aiohttp.ClientSession with a connector limit equal to the concurrency."""
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(base_url, connector=connector, timeout=timeout) as session:

        async def call() -> None:
            async with session.post("/v1/messages", json=BODY, headers=HEADERS) as response:
                response.raise_for_status()
                await response.json()

        yield call


@contextlib.asynccontextmanager
async def anthropic_sdk(base_url: str, concurrency: int, aiohttp: bool = False) -> Any:
    """The official SDK with its default transport, or with its aiohttp transport."""
    from anthropic import AsyncAnthropic, DefaultAioHttpClient

    http_client = DefaultAioHttpClient() if aiohttp else None
    client = AsyncAnthropic(
        base_url=base_url, api_key="bench", max_retries=0, timeout=60, http_client=http_client
    )
    try:

        async def call() -> None:
            await client.messages.create(
                model="fake-model",
                max_tokens=64,
                system="You are a helpful travel agent.",
                messages=[
                    {"role": "user", "content": "I need a one-way flight to Hanoi on Friday."}
                ],
            )

        yield call
    finally:
        await client.close()


def anthropic_sdk_aiohttp(base_url: str, concurrency: int) -> AbstractAsyncContextManager[Call]:
    """The official SDK over aiohttp (``DefaultAioHttpClient``)."""
    return anthropic_sdk(base_url, concurrency, aiohttp=True)


CLIENTS: dict[str, ClientFactory] = {
    "httpx": httpx_client,
    "aiohttp": aiohttp_client,
    "anthropic-sdk": anthropic_sdk,
    "anthropic-sdk-aiohttp": anthropic_sdk_aiohttp,
}


async def measure(
    factory: ClientFactory, base_url: str, concurrency: int, calls: int
) -> tuple[float, list[float], int]:
    """Run ``concurrency`` workers x ``calls``; return wall seconds, latencies, errors."""
    latencies: list[float] = []
    errors = 0
    async with factory(base_url, concurrency) as call:
        # One warm-up wave opens the connections, so the timed waves measure steady state.
        async with anyio.create_task_group() as tg:
            for _ in range(concurrency):
                tg.start_soon(call)

        async def worker() -> None:
            nonlocal errors
            for _ in range(calls):
                started = time.perf_counter()
                try:
                    await call()
                except Exception:
                    errors += 1
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(concurrency):
                tg.start_soon(worker)
        return time.perf_counter() - started, latencies, errors


@contextlib.contextmanager
def server_process(latency_ms: float) -> Iterator[str]:
    """The fake provider in its own process; yields its base URL."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "simlab.testing", "--port", "0"]
    command += ["--latency-ms", str(latency_ms)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().rsplit(" ", 1)[-1].strip()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def server_thread(latency_ms: float) -> Iterator[str]:
    """The fake provider in a thread of this process (shares the GIL with the client)."""
    with FakeProvider(FakeProviderConfig(latency_ms=latency_ms)).serve_in_thread() as url:
        yield url


def main(argv: list[str] | None = None) -> int:
    """Print achieved/ideal call rates per client and concurrency."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency-ms", type=float, default=300.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--calls", type=int, default=5, help="sequential calls per worker")
    parser.add_argument("--clients", nargs="+", choices=sorted(CLIENTS), default=list(CLIENTS))
    parser.add_argument("--server", choices=["process", "thread"], default="process")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the client side; print the top functions"
    )
    args = parser.parse_args(argv)
    serve = server_process if args.server == "process" else server_thread
    latency = args.latency_ms / 1000
    print(f"fake provider: {args.server}, latency {args.latency_ms:g} ms, cpus {os.cpu_count()}")
    print(
        f"{'client':<22}{'conc':>6}{'calls/s':>10}{'ideal':>9}{'ratio':>8}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}"
    )
    with serve(args.latency_ms) as base_url:
        for concurrency in args.concurrency:
            for name in args.clients:
                profiler = cProfile.Profile() if args.profile else None
                if profiler is not None:
                    profiler.enable()
                wall, lat, errors = anyio.run(
                    measure, CLIENTS[name], base_url, concurrency, args.calls
                )
                if profiler is not None:
                    profiler.disable()
                rate = concurrency * args.calls / wall
                ideal = concurrency / latency
                lat.sort()
                p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
                print(
                    f"{name:<22}{concurrency:>6}{rate:>10.1f}{ideal:>9.1f}{rate / ideal:>8.3f}"
                    f"{statistics.median(lat) * 1000:>9.0f}{p99 * 1000:>9.0f}{errors:>8}"
                )
                if profiler is not None:
                    # tottime: where the client's one core actually goes
                    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The fake provider's own CPU per request, on a recorded stream of real LLM-role requests.

``record`` runs the LLM-role suite of ``bench/llm_sessions.py`` (every role an
LLM, the roleplay responder, no latency) against an in-process fake provider and
writes every request body it received, in arrival order, one per line.
``replay`` feeds those bodies, in order, to a fresh fake provider's request
handler (no sockets: aiohttp's HTTP parsing and writing are left out, the JSON
parse, request parse, responder, prompt cache, stats and response encoding are
in), and prints the CPU-ms per request (process CPU time, so other load on the
machine does not count), a sha256 over every answer (status and body) and the
final stats: two versions of the fake provider answer the stream the same way
when both agree. ``--profile`` samples the replay (``bench/cpu_profile.py``).

    python bench/fake_provider_cpu.py record BODIES [--concurrency 64] [--reps 1]
    python bench/fake_provider_cpu.py replay BODIES [--repeat 3] [--profile]

Run ``replay`` with another checkout first on ``PYTHONPATH`` to compare versions
on the same stream (``record`` once).

Figures (one recorded stream, ``record --concurrency 64 --reps 1``: 2,385
requests of 144 sessions; ``replay --repeat 5``, main and this tree alternated
twice, load average 2.6-3.2 on the shared 2-core VM; the answers' sha256 and the
stats are the same for both):

* main at c086ce7: 0.605 and 0.635 CPU-ms per request (median of 5 replays each).
  Profile: ``body_digest``'s canonical JSON re-encoding 24%, ``json.loads`` 14%,
  the roleplay responder 23%, the ``Mapping`` ABC's ``isinstance`` 7%, the
  prompt cache's ``account`` 8%.
* The digest computed only when a responder draws from ``rng`` (the roleplay
  responder never does), ``dict`` checked before the ``Mapping`` ABC, the
  segments of resent messages made once: 0.510 and 0.440 (-25%).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from aiohttp import web

from simlab.engine import execute, plan_new_run
from simlab.testing import FakeProvider, FakeProviderConfig, Roleplay

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_profile import CpuProfile  # bench/'s sampling profiler
from llm_sessions import write_suite


class _Recording(FakeProvider):
    """A fake provider that keeps every request body it reads."""

    def __init__(self) -> None:
        super().__init__(FakeProviderConfig(), Roleplay("v1"))  # as llm_sessions' server
        self.bodies: list[bytes] = []

    async def _handle(self, request: web.Request, api: Any) -> web.StreamResponse:
        self.bodies.append(await request.read())  # aiohttp keeps the body for the next read
        return await super()._handle(request, api)


class _Body:
    """The part of an aiohttp request the fake provider's handler reads."""

    def __init__(self, body: bytes) -> None:
        self.headers: dict[str, str] = {}
        self._body = body

    async def read(self) -> bytes:
        return self._body


def record(path: Path, concurrency: int, reps: int) -> None:
    fake = _Recording()
    with fake.serve_in_thread() as url, tempfile.TemporaryDirectory() as tmp:
        os.environ["ANTHROPIC_BASE_URL"] = url
        os.environ.setdefault("ANTHROPIC_API_KEY", "bench-not-a-secret")
        plan = plan_new_run(write_suite(Path(tmp), concurrency, reps), Path(tmp) / "out")
        records = anyio.run(execute, plan)
    assert all(b"\n" not in body for body in fake.bodies)
    path.write_bytes(b"\n".join(fake.bodies) + b"\n")
    ok = sum(r.status == "ok" for r in records)
    print(f"{len(fake.bodies)} request bodies of {len(records)} sessions ({ok} ok) -> {path}")


async def _replay(bodies: list[bytes]) -> tuple[str, dict[str, Any]]:
    fake = FakeProvider(FakeProviderConfig(), Roleplay("v1"))  # fresh: no agent cached
    answers = hashlib.sha256()
    for body in bodies:
        response = await fake._handle(_Body(body), "anthropic")  # type: ignore[arg-type]
        assert isinstance(response, web.Response) and isinstance(response.body, bytes)
        answers.update(f"{response.status}\x1f".encode() + response.body + b"\x1e")
    return answers.hexdigest(), fake.stats().to_dict()


def replay(path: Path, repeat: int, profile: bool) -> None:
    bodies = path.read_bytes().splitlines()
    per_request = []
    for _ in range(repeat):
        started = time.process_time()
        answers, stats = asyncio.run(_replay(bodies))
        per_request.append((time.process_time() - started) / len(bodies) * 1000)
    shown = " ".join(f"{v:.3f}" for v in per_request)
    print(
        f"{len(bodies)} requests, CPU-ms per request: median {statistics.median(per_request):.3f}"
    )
    print(f"  ({repeat} replays: {shown})")
    print(f"answers sha256 {answers}")
    print(f"stats {json.dumps(stats, sort_keys=True)}")
    if profile:
        with CpuProfile() as prof:
            asyncio.run(_replay(bodies))
        print(prof.table(top=30))
        print(prof.table(top=20, by="own"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=["record", "replay"])
    parser.add_argument("bodies", type=Path)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.mode == "record":
        record(args.bodies, args.concurrency, args.reps)
    else:
        replay(args.bodies, args.repeat, args.profile)


if __name__ == "__main__":
    main()

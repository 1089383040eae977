"""Client CPU per LLM call on the anthropic backend: the SDK's typed call vs simlab's paths.

The fake provider answers at once in its own process; this process makes
``--calls`` Messages API calls with ``--concurrency`` in flight through
``AnthropicLLM``, alternating three request paths ``--rounds`` times each:
``sdk``, the SDK's typed ``messages.create`` (parameters deep-copied and
transformed, a pydantic ``Message`` built per reply); ``lean``, one ``json``
encode posted through the SDK client's ``post``, the reply read as JSON (the
path when a test hands the backend an ``http_client``); ``direct``, the same
body posted with simlab's aiohttp transport (the default). It prints the CPU
microseconds per call (CPU time: other load on the machine does not count) and
the ratios to ``sdk``. A client at C sessions in flight and latency L needs C / L calls
a second, so this figure bounds the LLM path's achieved/ideal ratio.

    python bench/llm_client_cpu.py [--calls 600] [--concurrency 64] [--rounds 6]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import anyio

from simlab.llm import LLMMessage, LLMRequest, LLMSpec
from simlab.llm._anthropic import AnthropicLLM

SYSTEM = "You are a traveller booking a trip. Stay in character. " * 40


def request() -> LLMRequest:
    """A simulated user's request seven turns in: a long system prompt, 13 messages."""
    msgs: list[LLMMessage] = []
    for i in range(6):
        msgs.append(
            LLMMessage(
                role="user",
                content=f"I want to fly from Hanoi to Da Nang on the {i + 3}th, two adults.",
            )
        )
        msgs.append(
            LLMMessage(
                role="assistant",
                content="I found flight VN123 at 09:00 for 2 adults: 240 USD. Shall I book it?",
            )
        )
    msgs.append(LLMMessage(role="user", content="Yes please."))
    return LLMRequest(messages=tuple(msgs), system=SYSTEM, role="user")


async def calls(llm: AnthropicLLM, req: LLMRequest, n: int, concurrency: int) -> None:
    todo = iter(range(n))

    async def worker() -> None:
        for _ in todo:
            await llm.complete(req)

    async with anyio.create_task_group() as tg:
        for _ in range(concurrency):
            tg.start_soon(worker)


async def compare(n: int, concurrency: int, rounds: int) -> None:
    llm = AnthropicLLM(LLMSpec(backend="anthropic", concurrency=concurrency))
    req = request()
    per_call: dict[str, list[float]] = {"sdk": [], "lean": [], "direct": []}
    order = list(per_call)
    for path in order:  # connections open, the SDK imported and its client made
        llm._lean, llm._direct = path != "sdk", path == "direct"
        await calls(llm, req, 200, concurrency)
    for r in range(rounds):
        for path in order if r % 2 == 0 else order[::-1]:
            llm._lean, llm._direct = path != "sdk", path == "direct"
            started = time.process_time()
            await calls(llm, req, n, concurrency)
            per_call[path].append((time.process_time() - started) / n * 1e6)
    await llm.aclose()
    for path, values in per_call.items():
        shown = "  ".join(f"{v:,.0f}" for v in values)
        print(f"{path:<5} {shown}   median {statistics.median(values):,.0f} us of CPU per call")
    sdk = statistics.median(per_call["sdk"])
    for path in ("lean", "direct"):
        ratio = sdk / statistics.median(per_call[path])
        print(f"sdk / {path}: {ratio:.2f}x the CPU per call")
    print(f"({rounds} interleaved rounds of {n} calls each, C={concurrency})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-m", "simlab.testing", "--port", "0", "--latency-ms", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    os.environ["ANTHROPIC_BASE_URL"] = server.stdout.readline().rsplit(" ", 1)[-1].strip()
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench-not-a-secret")
    try:
        anyio.run(compare, args.calls, args.concurrency, args.rounds)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()

"""LLM-role throughput against the fake provider at a fixed latency, and prompt-cache reuse.

Every role (user, agent, judge) is an LLM on the anthropic backend (simlab's
own HTTP/1.1 client over loopback; ``--paths sdk``: the official SDK's typed
call); the fake provider runs in its own process
with the roleplay responder and answers after ``--latency-ms``. For each
concurrency C, the ideal wall time is what C sessions in flight would need if
every call took exactly the latency, given each session's number of calls and
the orchestrator's C workers taking sessions in suite order.
The achieved/ideal ratio says how much the client side (engine, SDK, HTTP
stack, 2 shared cores) costs on top. Also printed: the share of the simulated
user's input tokens read from the prompt cache on sessions of 10+ user turns.

    python bench/llm_sessions.py [--latency-ms 300] [--concurrency 64 256] [--reps 2]
                                 [--paths lean sdk]  # the anthropic request path(s)
                                 [--profile]   # CPU samples of the client at the largest C
                                 [--against REF [--rounds N]]

On a shared machine the wall-time ratio says as much about the other load as
about simlab, so the client's CPU is printed too: CPU-ms per LLM call, and the
share of one core the client needs to keep C sessions in flight at the ideal
pace (client CPU / ideal wall time; under 100% the client is not the bound).
``--paths lean sdk`` runs each concurrency with simlab's lean request path (the
default: the body posted by simlab's transport) and with the SDK's typed
``messages.create`` (``AnthropicLLM.lean_post = False``, the path before), in
one run, and prints their ratios. ``--against REF`` runs the bench with git ref
REF's code and the working tree's in alternating subprocesses, ``--rounds`` times
each, and prints the medians of both (ratio and CPU-ms per call): on a shared
machine figures taken minutes apart are not comparable, interleaved ones are.
``--profile`` samples the client's stack on CPU time (``bench/cpu_profile.py``).
The fake provider's CPU per call is printed too (from /proc); its own profile is
``bench/fake_provider_cpu.py``'s.

Figures (issue 13's goal: >= 0.90 of the ideal at C=256, 300 ms; the 2-core VM
shared with other work; ``--concurrency 64 256 --reps 4``, 576 sessions and
9,503 LLM calls per concurrency):

* main at fb6efc7, one run at load average 0.7-1.7: C=64 0.90 of ideal,
  1.59 CPU-ms per call (the SDK's import included, ~0.1 ms a call); C=256 0.62,
  1.50 ms (client 41% of a core, server 31%). Four more C=256 runs of the same
  code (instrumented) within 5 minutes gave 0.63-0.89 and 0.95-1.40 ms: one run
  says little.
* The llm256 work (a plain retry loop for tenacity's, the body encoded around
  cached JSON literals of long texts, the SDK not imported on the direct path,
  a role's slots taken without a loop round, the LLM agent rendering each past
  message once), ``--against fb6efc7 --rounds 2`` at load average 3.9-4.4:
  CPU-ms per call C=64 1.77 -> 1.22 (ref 1.81 1.73, tree 1.30 1.13), C=256
  1.42 -> 1.12 (ref 1.31 1.52, tree 1.22 1.02); achieved/ideal C=64
  0.81 -> 0.91, C=256 0.53 -> 0.57 (at that load the cores, not simlab, bound
  C=256).
* The same work (53f3e23), one run at load average 2.0-2.3: C=64 0.96 of
  ideal, 1.15 CPU-ms per call; C=256 0.83, 0.92 ms (client 34% of a core,
  server 35%).
* Why 0.90 at C=256 is hard to reach here: at the ideal pace C=256 makes about
  850 calls a second, and the fake provider's process now spends as much CPU
  per request as the client (about 1.0 ms each, in a run with the server
  sampled too), so the two need most of the 2 shared cores. The server's
  profile: ``parse_anthropic`` 26% (of it ``body_digest``'s canonical JSON
  re-encoding 14%), ``json.loads`` 10%, the roleplay responder 14%, the prompt
  cache's ``account`` 7%. What the client spends, by its sampling profile at
  C=256 after this work: the simulated user's fidelity audit
  (``simulators/_audit.py`` ``read_mentions``) 16%, aiohttp's request and
  response handling about 25%, the LLM agent's tool calls (jsonschema
  validation) 6%, body encoding 6%, pydantic model construction 5%.
* The fakecpu13 work (the fake provider's digest computed on demand, ``dict``
  checked before the ``Mapping`` ABC, resent prompt segments made once:
  0.61-0.64 -> 0.44-0.51 CPU-ms per request in its handler by
  ``bench/fake_provider_cpu.py``; the audit's ``read_mentions`` in one scan per
  pattern, patterns that cannot match skipped, texts remembered per domain:
  182-244 -> 28 us per call on a run's 1,562 calls), ``--against main --rounds 2``
  at load average 2.6-3.7: achieved/ideal C=64 0.92 -> 0.95 (main 0.93 0.91,
  tree 0.94 0.96), C=256 0.73 -> 0.83 (main 0.73 0.74, tree 0.83 0.83); client
  CPU-ms per call C=64 1.17 -> 0.91, C=256 1.00 -> 0.78; server CPU-ms per call
  (whole process, aiohttp's HTTP handling included) C=64 1.00 -> 0.89, C=256
  0.88 -> 0.81. One run of this tree just before, at load average 2.6-3.2: C=64
  0.95 of ideal, client 0.97 and server 0.93 CPU-ms per call; C=256 0.79, client
  0.85 and server 0.87 ms (client 30% of a core, server 31%). Still short of
  0.90 at C=256 on this shared VM: together the two processes need about
  1.7 CPU-ms per call, about 1.4 cores at C=256's ideal pace of ~850 calls a
  second, with other engineers' work on the same 2 cores; what is left in the
  server is mostly aiohttp's HTTP handling (its handler is ~0.45 of its ~0.85 ms)
  and ``json.loads`` of the growing conversations.
* CI on a clean clone of e92f8b6 (``.ci/run``, 2026-12-01; the machine free of
  other work but for CI itself, ``--concurrency 64 256 --reps 4``, 9,487 LLM calls
  each): C=64 0.97 of the ideal, client 0.85 and server 0.89 CPU-ms per call;
  C=256 0.92, client 0.68 and server 0.77 ms (client 28% of a core, server 32%).
  The goal is met in that run; earlier CI runs of older code gave 0.88 and 0.91,
  so one run at 0.92 is not a margin: under load (above) it is 0.79-0.83.
* Where the gap comes from (the llm10 work, fe90f81, C=256, four instrumented
  runs at load average 2.6-3.2; every call timed in the client, every request
  in the fake provider, both loops' lag sampled every 5 ms). Not simlab's
  per-call work on the loop: entering the LLM layer to posting took 0.08 ms at
  the median (p99 4-8 ms), reply to the session's next call 0.3 ms (p99
  42-120 ms). The calls themselves took 180-250 ms over the 300 at the median:
  ~100 ms from the client's post to the provider's handler, 20-40 ms of the
  provider's own timer overshoot, ~100 ms from its answer to the client having
  the body, all of it the two processes waiting for a core (``/proc/PID/schedstat``
  run-queue wait: client 15.7 s, server 14.6 s, while they ran 10.1 and 9.5 s
  of a 33.5 s run). "Client 36% of a core" is a whole-run average: while all
  256 sessions are in flight (the first ~10 s) the two need 0.8-1.1 cores
  together, so on shared cores their CPU per call is the latency each call
  waits. Two causes found and fixed: (1) aiohttp's client, about 30% of the
  client's CPU (its request machinery, stream reader, response objects and the
  event-loop callbacks they schedule): simlab's own keep-alive HTTP/1.1 client
  (``simlab/llm/_http1.py``) takes 148 us of CPU per ``AnthropicLLM`` call
  where aiohttp took 301 (C=128 against the fake provider, 3 interleaved
  rounds); (2) the fake provider listened with aiohttp's default backlog of 128:
  the 256 connections a role opens at the start overflowed it (58-64 dropped
  handshakes per 3x256 burst, by the kernel's ListenOverflows), and each of those
  calls waited ~1 s for a SYN retransmit, on its session's critical path; a
  backlog of 4096 drops none. The ideal's model (greedy list scheduling in suite
  order, the last wave included) is what the orchestrator does, and the run's
  start and end (before the first call, after the last) took 0.05-0.17 s: not
  the gap. The connector's limit (256 per role, one call per session in
  flight) never made a call wait. Sessions are identical to fe90f81's (144 LLM
  sessions, C=64, records compared aside from timing).
* The llm10 work, ``--against fe90f81 --rounds 3 --concurrency 256 --reps 4``:
  at load average 4.1-7.1 with the new client alone: achieved/ideal
  0.39 -> 0.54 (fe90f81 0.47 0.39 0.39, tree 0.51 0.54 0.54), client CPU-ms per
  call 1.00 -> 0.72; with the backlog too, at load average 4.3-5.3:
  achieved/ideal 0.46 -> 0.55 (fe90f81 0.38 0.46 0.60, tree 0.55 0.53 0.67),
  client CPU-ms per call 1.09 -> 0.66 (fe90f81 1.09 1.10 0.97, tree 0.65 0.66
  0.72), server 0.98 -> 0.87. At that load (other engineers' test suites on
  the same 2 cores) no code reaches 0.90; the client now needs about 60% of the
  CPU per call it did, and the provider about as much as before. C=64,
  ``--against fe90f81 --rounds 2 --concurrency 64 --reps 4`` at load average
  4.4-6.6: achieved/ideal 0.88 -> 0.92 (fe90f81 0.88 0.88, tree 0.92 0.92),
  client CPU-ms per call 1.09 -> 0.88, server 1.03 -> 1.15 (noise: its code
  is unchanged but for the backlog).
* What remains, by the client's profile at C=256 after this work (0.67
  CPU-ms per call, the server 0.86): the simulated user's prompt building and
  audit ~15%, the LLM layer's own code ~16% (request encoding, response
  reading, accounting), the socket writes and loop callbacks ~13%, JSON ~15%
  (encoding ~10%: the LLM agent's context, tool-argument validation, prompts;
  decoding the replies ~5%), pydantic model construction ~10%, jsonschema 3%.
  The fake provider now spends more CPU per call than the client, half of it in
  aiohttp's server: on shared cores it is the larger share of what a call waits.
* 2026-12-03, fifteenth session: CI's run of a5f2e55 (``--concurrency 64 256
  --reps 4``, with other benchmarks of the session on the same 2 cores) C=64
  0.95, C=256 0.87; alone right after it, at 05ce1a3 (load average 0.3,
  ``--concurrency 256 --reps 4``) C=256 **0.90**, client 0.99 and server
  1.28 CPU-ms per call. The goal holds on a quiet machine; with other work
  beside it the two processes wait for a core, as above.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from simlab.engine import execute, plan_new_run
from simlab.llm._anthropic import AnthropicLLM
from simlab.store import SessionRecord

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_profile import CpuProfile  # bench/'s sampling profiler

ROOT = Path(__file__).resolve().parents[1]


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simlab.testing",
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
            "--responder",
            "roleplay-v1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, line.rsplit(" ", 1)[-1].strip()


def write_suite(tmp: Path, concurrency: int, reps: int) -> Path:
    llm = {"backend": "anthropic", "concurrency": concurrency, "timeout_s": 60}
    suite = {
        "seed": 11,
        "reps": reps,
        "concurrency": concurrency,
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
        "llm": llm,
        "simulator": {"kind": "llm"},
        "judge": {"kind": "llm"},
        "target": {"kind": "llm", "agent": str(ROOT / "domains/travel/agents/booking_llm.yaml")},
    }
    path = tmp / f"suite_{concurrency}.json.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    suite: Path, out: Path, profile: bool, server_pid: int
) -> tuple[list[SessionRecord], float, dict[str, float], Any]:
    plan = plan_new_run(suite, out)
    profiler = CpuProfile() if profile else None
    cpu0, server0 = time.process_time(), cpu_seconds(server_pid)
    started = time.perf_counter()
    if profiler:
        with profiler:
            records = anyio.run(execute, plan)
    else:
        records = anyio.run(execute, plan)
    wall = time.perf_counter() - started
    cpu = {"client": time.process_time() - cpu0, "server": cpu_seconds(server_pid) - server0}
    return records, wall, cpu, profiler


def scheduled_makespan(calls: list[int], concurrency: int, latency: float) -> float:
    """Wall time if every call took exactly ``latency``: the orchestrator's C workers
    take sessions in order, each lasting calls x latency (greedy list scheduling)."""
    import heapq

    free_at = [0.0] * min(concurrency, len(calls))
    for n in calls:
        start = heapq.heappop(free_at)
        heapq.heappush(free_at, start + n * latency)
    return max(free_at)


def cache_share(records: list[SessionRecord]) -> tuple[float, int]:
    """Share of the simulator's input tokens read from cache on 10+-turn sessions."""
    read = total = n = 0
    for r in records:
        user = r.meta.get("llm", {}).get("user")
        if r.n_user_turns < 10 or not user:
            continue
        n += 1
        read += user["cache_read_tokens"]
        total += user["input_tokens"] + user["cache_read_tokens"] + user["cache_write_tokens"]
    return (read / total if total else float("nan")), n


def show(
    records: list[SessionRecord],
    wall: float,
    cpu: dict[str, float],
    profiler: Any,
    c: int,
    path: str,
    args: argparse.Namespace,
) -> dict[str, float]:
    """Print one measurement; its ratio and client CPU-ms per call."""
    latency = args.latency_ms / 1000
    calls = [r.usage.calls for r in records]
    ideal = scheduled_makespan(calls, c, latency)
    ok = sum(r.status == "ok" for r in records)
    share, n_long = cache_share(records)
    cpu_ms = cpu["client"] / max(sum(calls), 1) * 1000
    server_ms = cpu["server"] / max(sum(calls), 1) * 1000
    print(f"== concurrency {c}, latency {args.latency_ms:g} ms, {path} request path")
    print(f"  sessions            {len(records)} ({ok} ok), {sum(calls)} LLM calls")
    print(f"  achieved            {len(records) / wall * 60:,.0f} sessions/min")
    print(f"  ideal (C in flight) {len(records) / ideal * 60:,.0f} sessions/min")
    print(f"  ratio               {ideal / wall:.2f}")
    print(f"  simulator cache-read share on 10+-turn sessions: {share:.1%} (n={n_long})")
    print(
        f"  cpu busy            client {cpu['client'] / wall:.0%} of a core, "
        f"server {cpu['server'] / wall:.0%} of a core (2 cores shared)"
    )
    print(
        f"  client cpu          {cpu_ms:.2f} ms per LLM call; needs "
        f"{cpu['client'] / ideal:.0%} of a core at the ideal pace"
    )
    print(f"  server cpu          {server_ms:.2f} ms per LLM call (the fake provider's process)")
    if profiler is not None:
        print(f"  profile at concurrency {c} (client process, CPU-time samples):")
        print(profiler.table(top=40))
        print(profiler.table(top=25, by="own"))
    return {"ratio": ideal / wall, "cpu_ms": cpu_ms, "server_ms": server_ms}


def against(ref: str, args: argparse.Namespace) -> None:
    """Interleaved runs of ``ref``'s code and the working tree's; per-C medians."""
    from same_sessions import export

    seen: dict[str, list[dict[str, dict[str, float]]]] = {"ref": [], "tree": []}
    nan = float("nan")
    command = [sys.executable, __file__, "--json", "--latency-ms", str(args.latency_ms)]
    command += ["--reps", str(args.reps), "--concurrency", *map(str, args.concurrency)]
    with tempfile.TemporaryDirectory() as tmp:
        code = {"ref": export(ref, Path(tmp) / "ref"), "tree": ROOT}
        for r in range(args.rounds):
            for side in ("ref", "tree") if r % 2 == 0 else ("tree", "ref"):
                env = {**os.environ, "PYTHONPATH": str(code[side])}
                out = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
                seen[side].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"== {ref[:12]} vs working tree, {args.rounds} interleaved rounds each")
    for c in map(str, args.concurrency):
        for key, label in (
            ("ratio", "achieved/ideal"),
            ("cpu_ms", "client CPU-ms per call"),
            ("server_ms", "server CPU-ms per call"),
        ):
            values = {side: [run[c].get(key, nan) for run in runs] for side, runs in seen.items()}
            old, new = (statistics.median(values[side]) for side in ("ref", "tree"))
            shown = {side: " ".join(f"{v:.2f}" for v in vs) for side, vs in values.items()}
            print(
                f"  C={c} {label}: {ref[:12]} {shown['ref']} | tree {shown['tree']}; "
                f"medians {old:.2f} -> {new:.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency-ms", type=float, default=300.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--paths", nargs="+", choices=["lean", "sdk"], default=["lean"])
    parser.add_argument("--against", metavar="REF", help="git ref to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        against(args.against, args)
        return

    server, url = start_server(args.latency_ms)
    os.environ["ANTHROPIC_BASE_URL"] = url
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench-not-a-secret")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            seen: dict[tuple[int, str], dict[str, float]] = {}
            for c in args.concurrency:
                for path in args.paths:
                    AnthropicLLM.lean_post = path == "lean"
                    profile = args.profile and c == max(args.concurrency)
                    out = Path(tmp) / f"out{c}{path}"
                    suite = write_suite(Path(tmp), c, args.reps)
                    records, wall, cpu, profiler = measure(suite, out, profile, server.pid)
                    seen[(c, path)] = show(records, wall, cpu, profiler, c, path, args)
            AnthropicLLM.lean_post = True
            if args.json:  # --against reads the last line
                print(json.dumps({str(c): seen[(c, args.paths[0])] for c in args.concurrency}))
            if len(args.paths) == 2:
                print("== lean vs sdk request path (same run)")
                for c in args.concurrency:
                    lean, sdk = seen[(c, "lean")], seen[(c, "sdk")]
                    print(
                        f"  C={c}: achieved/ideal {sdk['ratio']:.2f} -> {lean['ratio']:.2f}; "
                        f"client CPU per call {sdk['cpu_ms']:.2f} -> {lean['cpu_ms']:.2f} ms "
                        f"({sdk['cpu_ms'] / lean['cpu_ms']:.2f}x less)"
                    )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()

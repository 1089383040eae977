"""simlab's CPU per agent turn, as a share of a realistic agent's latency.

A real agent takes hundreds of milliseconds to seconds a turn; what simlab itself
spends on a turn (the simulated user, the engine, grading, the record) is only worth
cutting while it is a noticeable share of that. This runs the default suite (scaled
by ``--reps``) against an agent that answers as the reference agent does but takes
``--latency-ms`` (300) a turn, an ``await`` the engine waits on as it waits on a
remote agent, with enough sessions at once (``--concurrency``) that the run takes
well under a minute. It measures this process's CPU time (``time.process_time``,
every thread) from the first session to the last, takes away the reference agent's
own CPU (timed around each of its replies, which never wait), and prints::

    engine CPU per turn = X ms = Y% of a 300 ms agent      (goal: under 1%)

Then the offline suite as a user runs it (``simlab run --quiet`` in a subprocess,
against the reference agent itself: start-up, sessions and reports), by wall time
(the README's "about 5 seconds") and by the child's CPU time.

    python bench/engine_overhead.py [--reps N] [--latency-ms MS] [--concurrency N]
                                    [--suite simlab.yaml]

CPU is per process, not per machine: other load on a shared machine slows the run
but is not counted in it.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import anyio

from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import AgentReply, Message, SessionContext
from simlab.engine import execute, plan_new_run, target_factory

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.01  # of the agent's latency


@dataclasses.dataclass
class AgentTally:
    """The agent turns taken, and the CPU the agent's own replies used."""

    turns: int = 0
    cpu_s: float = 0.0


class LatentAgent:
    """The reference agent's reply, handed back after ``latency_s``."""

    def __init__(self, inner: TargetAgent, latency_s: float, tally: AgentTally) -> None:
        self.inner, self.latency_s, self.tally = inner, latency_s, tally
        self.capabilities = inner.capabilities

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        started = time.process_time()
        out = await self.inner.reply(history, ctx)  # never waits: all of it is its CPU
        self.tally.cpu_s += time.process_time() - started
        self.tally.turns += 1
        await anyio.sleep(self.latency_s)
        return out


@dataclasses.dataclass(frozen=True)
class Overhead:
    """One run against the latent agent."""

    sessions: int
    turns: int
    wall_s: float
    cpu_s: float
    agent_cpu_s: float

    @property
    def engine_ms_per_turn(self) -> float:
        return 1000 * (self.cpu_s - self.agent_cpu_s) / self.turns


def measure(suite: Path, reps: int | None, latency_s: float, concurrency: int) -> Overhead:
    """Run ``suite`` in this process against the latent agent; its figures."""
    tally = AgentTally()
    with tempfile.TemporaryDirectory() as out:
        plan = plan_new_run(suite, Path(out), reps=reps)
        plan = dataclasses.replace(
            plan, suite=plan.suite.model_copy(update={"concurrency": concurrency})
        )
        reference = target_factory(plan.suite)

        def target(setup: SessionSetup) -> TargetAgent:
            return LatentAgent(reference(setup), latency_s, tally)

        started, cpu_started = time.perf_counter(), time.process_time()
        records = anyio.run(execute, plan, lambda r: None, target, None, True)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return Overhead(len(records), tally.turns, wall, cpu, tally.cpu_s)


def offline_run_s(suite: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``simlab run SUITE --quiet`` in a fresh process (what a
    user waits; the CPU is the child's own, whatever else the machine runs)."""
    with tempfile.TemporaryDirectory() as out:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "simlab", "run", str(suite), "--quiet", "--out", out],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "simlab.yaml")
    parser.add_argument("--reps", type=int, default=None, help="default: the suite's own")
    parser.add_argument("--latency-ms", type=float, default=300.0)
    parser.add_argument("--concurrency", type=int, default=256)
    args = parser.parse_args()
    latency_s = args.latency_ms / 1000
    m = measure(args.suite, args.reps, latency_s, args.concurrency)
    engine_ms = m.engine_ms_per_turn
    share = engine_ms / args.latency_ms
    print(f"sessions            {m.sessions} ({m.turns} agent turns), {args.concurrency} at once")
    print(f"wall                {m.wall_s:.1f} s at {args.latency_ms:.0f} ms a turn")
    print(
        f"cpu                 {m.cpu_s:.2f} s (this process), "
        f"of which the agent's own replies {m.agent_cpu_s:.2f} s"
    )
    verdict = "within" if share < GOAL else "OVER"
    print(
        f"engine CPU per turn = {engine_ms:.3f} ms = {share:.3%} of a "
        f"{args.latency_ms:.0f} ms agent   ({verdict} the goal of {GOAL:.0%})"
    )
    wall, cpu = offline_run_s(args.suite)
    print(f"offline suite       simlab run --quiet, a fresh process: {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU")  # fmt: skip


if __name__ == "__main__":
    main()

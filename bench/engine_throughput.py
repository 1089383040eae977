"""Offline engine throughput: sessions/s, agent turns/s, and where the time goes.

Runs the default suite (scaled by --reps) in one process on one core against
the reference agent and the scripted simulator, writing a real run directory.
The time inside simulator calls, agent calls and grading is measured by
wrapping them; what remains of the wall time is the engine itself (session
loop, orchestration, records, writing ``sessions.jsonl``).

    python bench/engine_throughput.py [--reps N] [--suite simlab.yaml]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

import simlab.engine._session as session_module
from simlab.contracts import SessionSetup, SimState, TargetAgent, UserSimulator
from simlab.core import AgentReply, Message, SessionContext, UserTurn
from simlab.engine import execute, plan_new_run, simulator_factory, target_factory

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """Accumulated seconds per component."""

    def __init__(self) -> None:
        self.seconds = {"simulator": 0.0, "agent": 0.0, "graders": 0.0}
        self.agent_turns = 0


class TimedAgent:
    def __init__(self, inner: TargetAgent, clock: Clock) -> None:
        self.inner, self.clock = inner, clock
        self.capabilities = inner.capabilities

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        t = time.perf_counter()
        out = await self.inner.reply(history, ctx)
        self.clock.seconds["agent"] += time.perf_counter() - t
        self.clock.agent_turns += 1
        return out


class TimedSimulator:
    def __init__(self, inner: UserSimulator, clock: Clock) -> None:
        self.inner, self.clock = inner, clock

    async def next_turn(self, state: SimState) -> UserTurn:
        t = time.perf_counter()
        out = await self.inner.next_turn(state)
        self.clock.seconds["simulator"] += time.perf_counter() - t
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", type=Path, default=ROOT / "simlab.yaml")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()

    clock = Clock()
    real_grade = session_module.grade_session

    def timed_grade(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        out = real_grade(*args, **kwargs)
        clock.seconds["graders"] += time.perf_counter() - t
        return out

    session_module.grade_session = timed_grade  # type: ignore[assignment]

    with tempfile.TemporaryDirectory() as out:
        plan = plan_new_run(args.suite, Path(out), reps=args.reps)
        make_target = target_factory(plan.suite)
        make_sim = simulator_factory(plan.suite)

        def target(setup: SessionSetup) -> TargetAgent:
            return TimedAgent(make_target(setup), clock)

        def simulator(setup: SessionSetup) -> UserSimulator:
            return TimedSimulator(make_sim(setup), clock)

        started, cpu_started = time.perf_counter(), time.process_time()
        records = anyio.run(execute, plan, lambda r: None, target, simulator)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu_started

    parts = clock.seconds
    engine = wall - sum(parts.values())
    print(f"sessions            {len(records)}")
    print(f"agent turns         {clock.agent_turns}")
    print(f"wall                {wall:.3f} s (one process, one core)")
    print(f"cpu                 {cpu:.3f} s (this process; other load on the machine excluded)")
    print(
        f"sessions/s          {len(records) / wall:,.0f} wall, {len(records) / cpu:,.0f} per cpu-s"
    )
    print(
        f"agent turns/s       {clock.agent_turns / wall:,.0f} wall, "
        f"{clock.agent_turns / cpu:,.0f} per cpu-s   (target >= 5,000 on one core)"
    )
    print("where the wall time goes:")
    for name, seconds in [*parts.items(), ("engine (loop, records, disk)", engine)]:
        print(f"  {name:<30} {seconds / wall:6.1%}")
    print(f"engine share of wall {engine / wall:.1%}")


if __name__ == "__main__":
    main()

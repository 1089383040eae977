"""The driver's own limits: what one process can take whoever plays the sessions.

* records written per second by ``SessionWriter`` (one flushed line each), and
  records read back from worker JSON per second (what the Ray executor's driver
  does for each record before writing it);
* memory per session in flight: sessions of the default suite held open at their
  first agent turn, RSS before and after.

    python bench/driver_limits.py [--records 20000] [--in-flight 2000]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from pathlib import Path

import anyio

from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import AgentReply, Message, SessionContext
from simlab.engine import (
    SessionLimits,
    execute,
    plan_new_run,
    run_jobs,
    run_session,
    simulator_factory,
)
from simlab.store import SessionRecord, SessionWriter

ROOT = Path(__file__).resolve().parents[1]


def rss_mb() -> float:
    """This process's resident memory in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 1e6


def sample_records(out: Path) -> list[SessionRecord]:
    """The default suite's 1,536 records (travel and bank), played here."""
    plan = plan_new_run(ROOT / "simlab.yaml", out)
    from_engine: list[SessionRecord] = []

    async def play() -> None:
        from_engine.extend(await execute(plan))

    anyio.run(play)
    return from_engine


def writer_rate(records: list[SessionRecord], n: int, out: Path) -> tuple[float, float, float]:
    """Records/s appended by SessionWriter, records/s parsed from JSON, mean bytes per line."""
    run_dir = out / "writer"
    run_dir.mkdir()
    lines = [r.model_dump_json() for r in records]
    started = time.perf_counter()
    with SessionWriter(run_dir) as writer:
        for i in range(n):
            writer.append(records[i % len(records)])
    written = n / (time.perf_counter() - started)
    started = time.perf_counter()
    for i in range(n):
        SessionRecord.model_validate_json(lines[i % len(lines)])
    parsed = n / (time.perf_counter() - started)
    return written, parsed, sum(map(len, lines)) / len(lines)


class Held:
    """A target that answers nothing until released: its session stays in flight."""

    release: anyio.Event
    waiting = 0

    async def reply(self, history: list[Message], ctx: SessionContext) -> AgentReply:
        Held.waiting += 1
        await Held.release.wait()
        return AgentReply(text="Done.")


def memory_in_flight(n: int, out: Path) -> tuple[float, int]:
    """MB of RSS per session held in flight, and the sessions held."""
    plan = plan_new_run(ROOT / "simlab.yaml", out, reps=max(1, n // 144 + 1))
    jobs = plan.jobs[:n]
    make_sim = simulator_factory(plan.suite)
    limits = SessionLimits(plan.suite.max_turns, 3600)

    def target(setup: SessionSetup) -> TargetAgent:
        return Held()

    measured: list[float] = []

    async def main() -> None:
        Held.release = anyio.Event()
        gc.collect()
        before = rss_mb()

        async def runner(job: object) -> SessionRecord:
            return await run_session(job, target, make_sim, limits)  # type: ignore[arg-type]

        async with anyio.create_task_group() as tg:
            tg.start_soon(run_jobs, jobs, runner, n, lambda r: None)
            while Held.waiting < n:
                await anyio.sleep(0.05)
            gc.collect()
            measured.append(rss_mb() - before)
            Held.release.set()

    anyio.run(main)
    return measured[0] / n, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--in-flight", type=int, default=2_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        records = sample_records(out / "sample")
        written, parsed, size = writer_rate(records, args.records, out)
        per_session, n = memory_in_flight(args.in_flight, out / "held")
    print(f"record size         {size:,.0f} bytes per line (default suite, mean)")
    print(
        f"SessionWriter       {written:,.0f} records/s appended, flushed ({args.records} records)"
    )
    print(
        f"JSON -> record      {parsed:,.0f} records/s (the Ray driver's parse of a worker's line)"
    )
    print(f"memory in flight    {per_session * 1000:,.1f} KB RSS per session ({n} held at turn 1)")


if __name__ == "__main__":
    main()

"""The driver's own limits: what one process can take whoever plays the sessions.

* records written per second by ``SessionWriter`` (one flushed line each), and
  what the Ray executor's driver does per record: it writes the line a worker sent
  as it came and parses the slim record sent beside it (``simlab run`` keeps slim
  records); before 2026-12-02 it parsed the whole record and serialized it again;
* memory per session in flight: sessions of the default suite held open at their
  first agent turn, RSS before and after.

    python bench/driver_limits.py [--records 20000] [--in-flight 2000]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable
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
from simlab.engine._ray import worker_lines
from simlab.store import SessionRecord, SessionWriter, slim_record

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


def writer_rate(records: list[SessionRecord], n: int, out: Path) -> dict[str, float]:
    """Records/s: appended by SessionWriter, and each step of the Ray driver's per record
    (now: the slim JSON parsed and slimmed, the line written as it came; before: the whole
    record parsed, then appended); and the mean bytes per line."""
    pairs = [worker_lines(r) for r in records]

    def rate(step: Callable[[int], object]) -> float:
        started = time.perf_counter()
        for i in range(n):
            step(i % len(records))
        return n / (time.perf_counter() - started)

    figures: dict[str, float] = {"size": sum(len(line) for line, _ in pairs) / len(pairs)}
    for name in ("written", "lines", "whole"):
        run_dir = out / name
        run_dir.mkdir()
        with SessionWriter(run_dir) as writer:
            if name == "written":  # the local executor's: serialized here
                figures[name] = rate(lambda i: writer.append(records[i]))
            elif name == "lines":  # the Ray driver's now
                figures[name] = rate(
                    lambda i: (
                        slim_record(SessionRecord.model_validate_json(pairs[i][1])),
                        writer.append_line(pairs[i][0]),
                    )
                )
            else:  # the Ray driver's before: the whole record parsed, serialized again
                figures[name] = rate(
                    lambda i: writer.append(SessionRecord.model_validate_json(pairs[i][0]))
                )
    return figures


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
        rates = writer_rate(records, args.records, out)
        per_session, n = memory_in_flight(args.in_flight, out / "held")
    print(f"record size         {rates['size']:,.0f} bytes per line (default suite, mean)")
    print(
        f"SessionWriter       {rates['written']:,.0f} records/s appended, flushed "
        f"({args.records} records)"
    )
    print(
        f"Ray driver          {rates['lines']:,.0f} records/s (a worker's slim record parsed, "
        f"its line written as it came); whole record parsed and written again: "
        f"{rates['whole']:,.0f} records/s"
    )
    print(f"memory in flight    {per_session * 1000:,.1f} KB RSS per session ({n} held at turn 1)")


if __name__ == "__main__":
    main()

"""Run many sessions concurrently under a limit, handing each record on as it finishes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

import anyio
import anyio.lowlevel

from simlab.engine._expand import SessionJob
from simlab.store import SessionRecord

SessionRunner = Callable[[SessionJob], Awaitable[SessionRecord]]


class RecordSink(Protocol):
    """Where an executor hands each finished session: the driver's one writer."""

    def __call__(self, record: SessionRecord, line: bytes | None = None) -> None:
        """Take one session's record.

        Args:
            record: The record; with ``line``, the slim record of it
                (``store.slim_record``): where it ran, it was serialized whole.
            line: The whole record as its ``sessions.jsonl`` line
                (``store.record_line``), written as it is: the driver neither
                parses nor serializes it again unless it keeps whole records.
        """
        ...


async def run_jobs(
    jobs: Iterable[SessionJob],
    runner: SessionRunner,
    concurrency: int,
    on_record: Callable[[SessionRecord], None],
    should_start: Callable[[], bool] = lambda: True,
) -> None:
    """Run ``jobs`` with at most ``concurrency`` running.

    ``on_record`` is called once per finished session, in completion order.
    When ``should_start`` turns false (a spent budget), no new session starts
    and those running finish.
    """
    queue = iter(jobs)  # shared by the workers: next() never awaits, so no lock is needed

    async def worker() -> None:
        for job in queue:
            if not should_start():
                return
            on_record(await runner(job))
            # A session that never awaited (scripted user, in-process target) gave the
            # loop no turn: yield one, so Ctrl-C is seen and other workers start.
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        for _ in range(concurrency):
            tg.start_soon(worker)

"""Where a run's sessions are played: the executor seam.

The driver (``execute``) keeps what must be one per run: the append-only
writer, resume, the budget and the progress bar. An executor receives the
session jobs and hands back one record per session. The local executor plays
them on this process's event loop; the Ray executor (``_ray``) on worker
actors, which rebuild the roles from a ``RunBrief`` (the suite, its folder, the
personas and goals: data, never closures). A session's seed comes from its key,
so its record does not depend on where it ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from simlab.engine._brief import RunBrief
from simlab.engine._expand import SessionJob
from simlab.engine._orchestrator import RecordSink, SessionRunner, run_jobs
from simlab.engine._ray import RayExecutor
from simlab.llm import Budget
from simlab.spec import Problem, SpecError, Suite


class SessionExecutor(Protocol):
    """Plays session jobs and hands each finished session's record to the driver."""

    async def run(
        self,
        jobs: Sequence[SessionJob],
        on_record: RecordSink,
        should_start: Callable[[], bool],
    ) -> None:
        """Play ``jobs``; call ``on_record`` once per session, on the driver's loop.

        When ``should_start`` turns false (a spent budget), no new session
        starts and those running finish.
        """
        ...


@dataclass(frozen=True)
class LocalExecutor:
    """Sessions on this process's event loop, at most ``concurrency`` at once."""

    runner: SessionRunner
    concurrency: int

    async def run(
        self,
        jobs: Sequence[SessionJob],
        on_record: RecordSink,
        should_start: Callable[[], bool],
    ) -> None:
        """Play ``jobs`` here (see ``SessionExecutor.run``)."""
        await run_jobs(jobs, self.runner, self.concurrency, on_record, should_start)


def choose_executor(
    suite: Suite,
    suite_dir: Path,
    jobs: Sequence[SessionJob],
    runner: SessionRunner,
    concurrency: int,
    budget: Budget,
    given_in_code: Sequence[str] = (),
) -> SessionExecutor:
    """The executor the suite's ``executor:`` names.

    Args:
        suite: The run's suite.
        suite_dir: Its folder.
        jobs: Every session of the run (the brief carries the personas and goals they use).
        runner: Plays one session here (the local executor's).
        concurrency: Sessions at once (per worker on Ray).
        budget: The run's budget; the Ray executor charges it from each record's cost.
        given_in_code: Roles given as Python objects (they cannot be shipped to workers).

    Raises:
        SpecError: Ray is asked for with roles given in code, or is not installed.
    """
    spec = suite.executor
    if spec.kind == "local":
        return LocalExecutor(runner, concurrency)
    if given_in_code:
        roles = ", ".join(given_in_code)
        raise SpecError(
            [
                Problem(
                    "suite",
                    None,
                    "executor",
                    f"ray: the {roles} given as Python objects cannot be shipped to Ray "
                    "workers (they rebuild every role from the suite); name them in the "
                    "suite (target: module:attr, grading.graders: [module:attr]) or run "
                    "with executor: local",
                )
            ]
        )
    return RayExecutor(spec, RunBrief.of(suite, suite_dir, jobs, concurrency), budget)

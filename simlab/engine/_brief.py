"""A run's brief: what a worker elsewhere needs to play its sessions, as plain data.

Factories are not shipped as closures: a worker gets the suite, its folder and
the personas and goals, rebuilds the roles with ``build_roles`` itself, and
plays the sessions it is handed by key and seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simlab.core import SessionKey
from simlab.engine._contain import contained
from simlab.engine._expand import SessionJob
from simlab.engine._orchestrator import run_jobs
from simlab.engine._roles import RoleLimitsFactory, RunRoles, build_roles
from simlab.engine._session import SessionLimits, run_session
from simlab.spec import Goal, Mode, Persona, Suite
from simlab.store import SessionRecord

JobTicket = tuple[SessionKey, int]
"""A session as shipped to a worker: its key and its seed."""


@dataclass(frozen=True)
class RunBrief:
    """What a worker elsewhere needs to play a run's sessions, as plain data.

    Attributes:
        suite: The suite, ``model_dump(mode="json")`` (overrides applied).
        suite_dir: The folder its relative paths start from (the same path on
            every machine: the suite's files must be there).
        personas: The personas the run's sessions use, by id, as JSON data.
        goals: The goals they use, by id.
        concurrency: Sessions a worker plays at once.
    """

    suite: dict[str, Any]
    suite_dir: str
    personas: dict[str, dict[str, Any]]
    goals: dict[str, dict[str, Any]]
    concurrency: int

    @classmethod
    def of(
        cls, suite: Suite, suite_dir: Path, jobs: Sequence[SessionJob], concurrency: int
    ) -> RunBrief:
        """The brief of a run whose sessions are ``jobs``."""
        return cls(
            suite=suite.model_dump(mode="json"),
            suite_dir=str(suite_dir.resolve()),
            personas={j.persona.id: j.persona.model_dump(mode="json") for j in jobs},
            goals={j.goal.id: j.goal.model_dump(mode="json") for j in jobs},
            concurrency=concurrency,
        )


class BriefPlayer:
    """A worker's side: the roles rebuilt from a brief, and sessions played by key and seed.

    Args:
        brief: The run.
        limits: Each LLM role's limits in place of its spec's own (shared ones).
    """

    def __init__(self, brief: RunBrief, limits: RoleLimitsFactory | None = None) -> None:
        self.brief = brief
        self.suite = Suite.model_validate(brief.suite)
        self._personas = {k: Persona.model_validate(v) for k, v in brief.personas.items()}
        self._goals = {k: Goal.model_validate(v) for k, v in brief.goals.items()}
        self._limits = limits
        self._roles: RunRoles | None = None

    def roles(self) -> RunRoles:
        """The run's roles, built on first use (inside the worker's event loop)."""
        if self._roles is None:
            self._roles = build_roles(self.suite, Path(self.brief.suite_dir), limits=self._limits)
        return self._roles

    def job(self, ticket: JobTicket) -> SessionJob:
        """The session job a ticket stands for."""
        key, seed = ticket
        return SessionJob(
            key, seed, self._personas[key.persona], self._goals[key.goal], Mode(key.mode)
        )

    async def play(self, tickets: Sequence[JobTicket]) -> list[SessionRecord]:
        """Play these sessions, up to the brief's concurrency at once; their records."""
        roles = self.roles()
        suite = self.suite
        limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)

        @contained  # one session's failure is its record, never the batch's
        async def runner(job: SessionJob) -> SessionRecord:
            return await run_session(
                job, roles.target, roles.simulator, limits,
                judge=roles.judge, graders=roles.graders, grading=suite.grading,
                domains=roles.domains,
            )  # fmt: skip

        records: list[SessionRecord] = []
        jobs = [self.job(t) for t in tickets]
        await run_jobs(jobs, runner, max(1, min(len(jobs), self.brief.concurrency)), records.append)
        return records

    async def aclose(self) -> None:
        """Close the roles' clients."""
        if self._roles is not None:
            await self._roles.aclose()

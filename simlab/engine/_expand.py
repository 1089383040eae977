"""Expand a suite into the sessions it asks for."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass

from simlab.engine._seeds import derive_seed
from simlab.spec import Goal, Mode, Persona, Problem, SpecError, Suite
from simlab.store import SessionKey


@dataclass(frozen=True, slots=True)
class SessionJob:
    """Everything needed to run one session."""

    key: SessionKey
    seed: int
    persona: Persona
    goal: Goal
    mode: Mode


def session_seed(run_seed: int, key: SessionKey) -> int:
    """The seed of one session, from the run seed and the session's key."""
    return derive_seed(run_seed, key.persona, key.goal, key.mode, key.rep, list(key.perturbations))


def select(patterns: list[str], available: Mapping[str, object], what: str) -> list[str]:
    """Ids matching ``patterns`` (exact ids or globs like ``*_vi``), in sorted order."""
    chosen: set[str] = set()
    problems = []
    for pattern in patterns:
        hits = fnmatch.filter(available, pattern)
        if not hits:
            valid = ", ".join(sorted(available)) or "(none found)"
            problems.append(
                Problem("suite", None, what, f"{pattern!r} matches no {what[:-1]}; valid: {valid}")
            )
        chosen.update(hits)
    if problems:
        raise SpecError(problems)
    return sorted(chosen)


def expand(
    suite: Suite, personas: Mapping[str, Persona], goals: Mapping[str, Goal]
) -> list[SessionJob]:
    """Every session of the suite, in a stable order (persona, goal, mode, rep)."""
    jobs = []
    for pid in select(suite.personas, personas, "personas"):
        for gid in select(suite.goals, goals, "goals"):
            for mode in suite.modes:
                for rep in range(suite.reps):
                    key = SessionKey(persona=pid, goal=gid, mode=mode.value, rep=rep)
                    jobs.append(
                        SessionJob(
                            key, session_seed(suite.seed, key), personas[pid], goals[gid], mode
                        )
                    )
    return jobs

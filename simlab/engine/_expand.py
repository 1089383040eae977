"""Expand a suite into the sessions it asks for."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

from simlab.core import SessionKey, derive_seed
from simlab.spec import Goal, Mode, Persona, Suite, select


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


def expand(
    suite: Suite, personas: Mapping[str, Persona], goals: Mapping[str, Goal]
) -> list[SessionJob]:
    """Every session of the suite, in a stable order (persona, goal, mode, rep).

    A persona meets every goal, except a goal of another domain than the one the
    persona names (a bank customer is not sent on a travel errand): a suite of
    several domains runs each domain's personas on its own goals, and personas
    that name no domain on all of them.
    """
    jobs = []
    for pid in select(suite.personas, personas, "personas"):
        for gid in select(suite.goals, goals, "goals"):
            mine, its = personas[pid].domain, goals[gid].domain
            if mine is not None and its is not None and mine != its:
                continue
            for mode in suite.modes:
                for rep in range(suite.reps):
                    # interned: a run's records share one string of each name
                    key = SessionKey(
                        persona=sys.intern(pid),
                        goal=sys.intern(gid),
                        mode=sys.intern(mode.value),
                        rep=rep,
                    )
                    jobs.append(
                        SessionJob(
                            key, session_seed(suite.seed, key), personas[pid], goals[gid], mode
                        )
                    )
    return jobs

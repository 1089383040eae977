"""Shared helpers: the shipped library, plain personas, and one session run end to end."""

from __future__ import annotations

from pathlib import Path

import anyio

from simlab.agents.reference import reference_agent
from simlab.contracts import SessionSetup
from simlab.core import SessionKey, derive_seed
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.perturb import perturbed_simulator_factory
from simlab.spec import (
    Goal,
    Language,
    Mode,
    Persona,
    Perturbation,
    Traits,
    load_goals,
    load_perturbations,
)
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = load_perturbations([ROOT / "perturbations"])
GOALS = load_goals([ROOT / "goals"])
LIMITS = SessionLimits(max_turns=20, turn_timeout_s=30)


def persona(language: Language) -> Persona:
    """A patient, plain persona: no mind changes, no fillers, no typos of its own."""
    return Persona(
        id=f"plain_{language}",
        name="Plain",
        language=language,
        traits=Traits(patience=20, disclosure="batch", change_mind=0.0, verbosity=0.0),
    )


def pinned(pid: str, turn: int, **update: object) -> Perturbation:
    """The shipped perturbation ``pid`` landing exactly at ``turn`` (other fields updated)."""
    base = LIBRARY[pid]
    lands = base.lands.model_copy(update={"earliest": turn, "latest": turn})
    return base.model_copy(update={"lands": lands, **update})


def run(
    language: Language,
    goal: str,
    mode: Mode,
    perturbations: list[Perturbation],
    *,
    version: str = "v2",
    seed: int = 7,
) -> SessionRecord:
    """One session against the reference agent with ``perturbations`` active."""
    library = {p.id: p for p in perturbations}
    key = SessionKey(
        persona=f"plain_{language}",
        goal=goal,
        mode=mode.value,
        rep=0,
        perturbations=tuple(p.id for p in perturbations),
    )
    job = SessionJob(key, seed, persona(language), GOALS[goal], mode)

    def target(setup: SessionSetup) -> object:
        return reference_agent(version, setup.agent_seed)

    make_sim = perturbed_simulator_factory(library)
    return anyio.run(run_session, job, target, make_sim, LIMITS)  # type: ignore[arg-type]


def user_seed(seed: int = 7) -> int:
    """The user seed of a session with session seed ``seed`` (as the engine derives it)."""
    return derive_seed(seed, "user")


def goal(goal_id: str) -> Goal:
    """A shipped goal."""
    return GOALS[goal_id]

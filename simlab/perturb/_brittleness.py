"""The cumulative brittleness experiment: how many stacked perturbations a passing session takes.

For every baseline session that passed, the perturbation library is shuffled
in an order seeded by the session seed, and the session is re-run with the
first k perturbations active (k = 1, 2, ...) until it fails. Brittleness is
the k at that failure; a session that survives the whole stack is censored
at the number tried. A re-run that errors (infrastructure, not the agent)
ends the chain censored at the last k that passed: errors are never failures.

Re-runs keep the baseline's session seed (the key carries the stack, the seed
does not change), so the disclosure plan and the agent's own randomness are
the baseline's and the only difference between k and k + 1 is one more
perturbation.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from simlab.contracts import SimulatorFactory, TargetFactory
from simlab.core import SessionKey, derive_seed
from simlab.engine import (
    BUILTIN_SCORING,
    RunRoles,
    Scoring,
    SessionJob,
    SessionLimits,
    build_roles,
    run_jobs,
    run_session,
)
from simlab.spec import Perturbation, Suite, register_perturbations
from simlab.store import SessionRecord

"""The experiment's summary, in the run directory."""
"""Every re-run, one JSON object per line: ``target``, ``base``, ``k``, ``record``."""


@dataclass(frozen=True, slots=True)
class SessionBrittleness:
    """One baseline session's chain of re-runs.

    Attributes:
        key: the baseline session's key (no perturbations).
        order: the seeded order the perturbations were stacked in.
        k: the number of perturbations active at the failure (``event``), or
            the number survived (censored).
        event: True when a re-run failed; False when censored.
        broke_by: the k-th perturbation, the one whose addition broke it.
        records: the re-runs, k = 1, 2, ... in order.
        error: why the chain stopped early when a re-run errored.
    """

    key: SessionKey
    order: tuple[str, ...]
    k: int
    event: bool
    broke_by: str | None
    records: list[SessionRecord]
    error: str | None = None


@dataclass(slots=True)
class TargetBrittleness:
    """The experiment against one target.

    Attributes:
        target: the target's name (``reference:v1``).
        n_baseline: baseline sessions graded (status ok).
        n_errors: baseline sessions that errored (not counted anywhere else).
        sessions: one chain per baseline session that passed, in suite order.
    """

    target: str
    n_baseline: int
    n_errors: int
    sessions: list[SessionBrittleness] = field(default_factory=list)


@dataclass(slots=True)
class BrittlenessResult:
    """The whole experiment: the library used and each target's chains."""

    perturbations: tuple[str, ...]
    max_k: int
    targets: dict[str, TargetBrittleness]


def shuffled_order(session_seed: int, ids: Sequence[str]) -> tuple[str, ...]:
    """The order a session's perturbations are stacked in, from its seed alone.

    Sorted first, so the order depends on the library's content, not on the
    order files were listed in.
    """
    order = sorted(ids)
    random.Random(derive_seed(session_seed, "brittleness")).shuffle(order)
    return tuple(order)


def perturbed_roles(
    library: Mapping[str, Perturbation], suite: Suite, suite_dir: Path | None = None
) -> RunRoles:
    """The suite's simulated user (scripted or LLM) playing each session's perturbations.

    A session's key names its perturbations; they are taken from ``library``,
    which is also registered, so the engine finds the same injections'
    canaries when it grades. The caller closes the roles (``aclose``): an LLM
    simulator's client is opened here.

    Raises:
        SpecError: the suite's simulator asks for an LLM and names none.
        LLMConfigError: a missing key or optional dependency.
    """
    register_perturbations(library)

    def lookup(ids: Sequence[str]) -> list[Perturbation]:
        return [library[pid] for pid in ids]

    return build_roles(suite, suite_dir or Path.cwd(), parts=("user",), perturbations=lookup)


def perturbed_simulator_factory(
    library: Mapping[str, Perturbation], suite: Suite | None = None, suite_dir: Path | None = None
) -> SimulatorFactory:
    """The suite's simulated user with the session's perturbations (from ``library``) active.

    Without a suite, the scripted simulator. An LLM simulator's client stays
    open for the process (as ``simlab.engine.simulator_factory``'s does); use
    ``perturbed_roles`` to close it.

    Raises:
        SpecError: the suite's simulator asks for an LLM and names none.
        LLMConfigError: a missing key or optional dependency.
    """
    return perturbed_roles(library, suite or Suite(), suite_dir).simulator


async def run_baseline(
    jobs: Sequence[SessionJob],
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    concurrency: int,
    scoring: Scoring = BUILTIN_SCORING,
) -> list[SessionRecord]:
    """Run ``jobs`` in memory (nothing written), in the jobs' order, graded by ``scoring``."""
    done: dict[SessionKey, SessionRecord] = {}

    async def runner(job: SessionJob) -> SessionRecord:
        return await run_session(
            job, make_target, make_simulator, limits,
            graders=scoring.graders, grading=scoring.grading, domains=scoring.domains,
        )  # fmt: skip

    await run_jobs(jobs, runner, concurrency, lambda r: done.__setitem__(r.key, r))
    return [done[j.key] for j in jobs]


async def _chain(
    job: SessionJob,
    order: tuple[str, ...],
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    scoring: Scoring,
) -> SessionBrittleness:
    records: list[SessionRecord] = []
    for k in range(1, len(order) + 1):
        key = job.key.model_copy(update={"perturbations": order[:k]})
        perturbed = SessionJob(key, job.seed, job.persona, job.goal, job.mode)
        record = await run_session(
            perturbed, make_target, make_simulator, limits,
            graders=scoring.graders, grading=scoring.grading, domains=scoring.domains,
        )  # fmt: skip
        records.append(record)
        if record.status != "ok":
            said = record.error.headline if record.error else ""
            error = f"k={k}: {record.stop_reason.value}: {said}"
            return SessionBrittleness(job.key, order, k - 1, False, None, records, error)
        if not record.passed:
            return SessionBrittleness(job.key, order, k, True, order[k - 1], records)
    return SessionBrittleness(job.key, order, len(order), False, None, records)


async def brittleness_for_target(
    target: str,
    baseline: Sequence[SessionRecord],
    jobs: Mapping[SessionKey, SessionJob],
    make_target: TargetFactory,
    library: Mapping[str, Perturbation],
    limits: SessionLimits,
    *,
    max_k: int | None = None,
    concurrency: int = 32,
    make_simulator: SimulatorFactory | None = None,
    scoring: Scoring = BUILTIN_SCORING,
) -> TargetBrittleness:
    """Re-run every passing ``baseline`` session with growing perturbation stacks.

    Args:
        target: the target's name, for the result.
        baseline: the baseline sessions (errors and failures are skipped).
        jobs: the suite's sessions by key (persona, goal, mode of each record).
        make_target: the target's per-session factory.
        library: the perturbations to stack, by id.
        limits: max turns and per-turn timeout, as in the suite.
        max_k: stack at most this many (default: the whole library).
        concurrency: chains running at once.
        make_simulator: the re-runs' simulated user, playing the perturbations
            each key names from ``library`` (``perturbed_roles``); default: the
            scripted one.
        scoring: how the re-runs are graded: the run's own graders and pass rule,
            so a chain breaks where the run would call it a failure.

    Raises:
        KeyError: a baseline record's key is not among ``jobs``.
    """
    if make_simulator is None:
        make_simulator = perturbed_simulator_factory(library)
    ids = tuple(library)
    depth = len(ids) if max_k is None else min(max_k, len(ids))
    passing = [r for r in baseline if r.status == "ok" and r.passed]
    result = TargetBrittleness(
        target,
        n_baseline=sum(1 for r in baseline if r.status == "ok"),
        n_errors=sum(1 for r in baseline if r.status != "ok"),
    )
    chains: list[SessionBrittleness | None] = [None] * len(passing)
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(i: int, record: SessionRecord) -> None:
        job = jobs[record.key]
        order = shuffled_order(record.seed, ids)[:depth]
        async with limiter:
            chains[i] = await _chain(
                SessionJob(record.key, record.seed, job.persona, job.goal, job.mode),
                order,
                make_target,
                make_simulator,
                limits,
                scoring,
            )

    async with anyio.create_task_group() as tg:
        for i, record in enumerate(passing):
            tg.start_soon(one, i, record)
    result.sessions = [c for c in chains if c is not None]
    return result

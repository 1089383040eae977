"""Counterfactual replays that verify a diagnosis, through the engine's session loop.

Each diagnosed cause predicts what a changed session would do. The session is
re-run by ``simlab.engine.run_session`` with the same seeds (so the same
simulated user and the same agent draws) and one thing changed:

* **truncation** - ``Knobs(context_window=0)``, an unlimited window. Predicts
  the first failing check now passes.
* **drift** - ``Knobs(instruction_reminder=True)``, the system rules restated
  each turn. Predicts the confirmation now passes.
* **anchoring** - *everything in one turn, as it finally stands*: ``full`` mode
  with the goal's mind changes folded into its facts, so every constraint is
  known before any proposal. Predicts the first failing check now passes. No
  knob can do this: a constraint recap or a wider window hands the agent a
  constraint it already sees, and an anchored agent ignores it all the same.
* **single_turn** - the same one-turn replay. Predicts the session *still* fails.
* **unknown** - nothing to verify.

A diagnosis is verified when the replay's outcome is the predicted one. A
target that does not honour a knob the replay needs cannot verify it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import anyio

from simlab.contracts import SimulatorFactory, TargetFactory
from simlab.core import AgentCapabilities, Knobs
from simlab.engine import (
    BUILTIN_SCORING,
    Scoring,
    SessionJob,
    SessionLimits,
    run_session,
    session_setup,
)
from simlab.spec import Goal, Mode
from simlab.store import Cause, SessionRecord

NO_ACTION = "no final action"

Replay = Literal["unlimited_window", "instruction_reminder", "one_turn"]
"""The counterfactual a replay applies."""

COUNTERFACTUAL: dict[Cause, Replay] = {
    Cause.TRUNCATION: "unlimited_window",
    Cause.DRIFT: "instruction_reminder",
    Cause.ANCHORING: "one_turn",
    Cause.SINGLE_TURN: "one_turn",
}
"""Which replay verifies each cause (``unknown`` has none)."""

_NEEDS: dict[Replay, str | None] = {
    "unlimited_window": "context_window",
    "instruction_reminder": "instruction_reminder",
    "one_turn": None,
}


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """One counterfactual replay to run: the changed job and the knobs."""

    job: SessionJob
    knobs: Knobs


def settled_goal(goal: Goal) -> Goal:
    """``goal`` with every mind change folded into its facts (the final wishes) and none left."""
    final = {f.id: f.value for f in goal.facts}
    for change in goal.mind_changes:
        final[change.fact] = change.value
    facts = [f.model_copy(update={"value": final[f.id]}) for f in goal.facts]
    return goal.model_copy(update={"facts": facts, "mind_changes": []})


def replay_plan(job: SessionJob, replay: Replay) -> ReplayPlan:
    """The job and knobs of ``replay`` applied to the original session ``job``."""
    if replay == "unlimited_window":
        return ReplayPlan(job, Knobs(context_window=0))
    if replay == "instruction_reminder":
        return ReplayPlan(job, Knobs(instruction_reminder=True))
    key = job.key.model_copy(update={"mode": Mode.FULL.value})
    one_turn = SessionJob(key, job.seed, job.persona, settled_goal(job.goal), Mode.FULL)
    return ReplayPlan(one_turn, Knobs())


def missing_capability(replay: Replay, capabilities: AgentCapabilities) -> str | None:
    """The knob ``replay`` needs that the target does not honour, if any."""
    needed = _NEEDS[replay]
    if needed is None or getattr(capabilities, needed):
        return None
    return needed


def target_capabilities(make_target: TargetFactory, job: SessionJob) -> AgentCapabilities:
    """What the suite's target honours (one throwaway instance tells)."""
    return make_target(session_setup(job)).capabilities


T = TypeVar("T")
R = TypeVar("R")


async def gather_limited(
    items: Sequence[T], work: Callable[[T], Awaitable[R]], concurrency: int
) -> list[R]:
    """``work`` over ``items`` concurrently, at most ``concurrency`` at once, results in order."""
    done: dict[int, R] = {}
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def one(i: int, item: T) -> None:
        async with limiter:
            done[i] = await work(item)

    async with anyio.create_task_group() as tg:
        for i, item in enumerate(items):
            tg.start_soon(one, i, item)
    return [done[i] for i in range(len(items))]


async def run_replays(
    plans: Sequence[ReplayPlan],
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    concurrency: int,
    scoring: Scoring = BUILTIN_SCORING,
) -> list[SessionRecord]:
    """Run each replay through the engine's session loop, graded by ``scoring`` (the
    run's own graders and pass rule); records in ``plans`` order."""

    async def one(plan: ReplayPlan) -> SessionRecord:
        return await run_session(
            plan.job, make_target, make_simulator, limits, plan.knobs,
            graders=scoring.graders, grading=scoring.grading,
        )  # fmt: skip

    return await gather_limited(plans, one, concurrency)


def verdict(cause: Cause, check: str, replay: SessionRecord) -> tuple[bool, str]:
    """Whether the replay came out as ``cause`` predicts, and what it showed."""
    if replay.status != "ok":
        return False, f"replay ended in error ({replay.stop_reason}): cannot tell"
    if cause is Cause.SINGLE_TURN:
        if replay.passed:
            return False, "passed with everything in one turn: not a single-turn failure"
        return True, "still fails with everything in one turn"
    got = replay.checks.get(check)
    if got is None:
        return False, f"{check} was not judged in the replay"
    if got.passed:
        return True, f"{check} passes in the replay"
    if cause is Cause.TRUNCATION and got.detail == NO_ACTION:
        # The prediction is that the agent no longer acts on a partial view; not
        # acting at all (for another reason) keeps that prediction.
        return True, f"{check} is no longer broken by an action in the replay (no final action)"
    return False, f"{check} still fails in the replay ({got.detail})"

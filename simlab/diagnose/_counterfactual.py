"""Counterfactual replays that verify a diagnosis, through the engine's session loop.

Each diagnosed cause predicts what a changed session would do. The session is
re-run by ``simlab.engine.run_session`` with the same seeds (so the same
simulated user and the same agent draws) and one thing changed:

* **unlimited_window** - ``Knobs(context_window=0)``: nothing falls out of view.
* **instruction_reminder** - ``Knobs(instruction_reminder=True)``: the system
  rules restated each turn.
* **one_turn** - *everything in one turn, as it finally stands*: ``full`` mode
  with the goal's mind changes folded into its facts, so every constraint is
  known before any proposal.
* **one_turn_as_told** - ``full`` mode with the goal as the user told it in the
  session, the mind changes it stated and only those: the control for ``one_turn``.
  (A persona changes its mind with a chance; re-drawn in another mode, a change the
  session had could be left out of the control, which then passes for the wrong
  reason.)
* **agent_redrawn** - the unchanged session with the agent's own random draws
  re-drawn (its seed changed; the simulated user's kept): the control for
  chance. A failure this fixes was a bad draw (a misread), not a cause that
  the conversation's shape produces.

A replay *fixes* a failure when the first failing check passes in it, or,
for a broken constraint, when no action breaks it any more (a session that
never took its final action: when the replay passes).

**Specific verification.** Every replay runs on every failure, and a cause is
verified only when its own counterfactual fixes the failure and the others'
do not; a fix by a broader change says nothing about which cause it was.

* **truncation** - the unlimited window fixes it; the reminder does not.
* **drift** - the reminder fixes it; the unlimited window does not.
* **anchoring** - ``one_turn`` fixes it, while ``one_turn_as_told`` does not
  (the same single turn, but with the later changes still coming after the
  agent's first proposal), and neither the window nor the reminder does.
  Nor may re-drawing the agent's chance alone fix it (``agent_redrawn``).
  ``one_turn`` alone is not specific: a shorter conversation also ends a
  truncation, a drift or an impatient user's giving up, and re-draws a
  misread; the control shares all of that and differs only in whether the
  final wishes are known before the agent commits, and the chance control
  rules out a failure that was a bad draw. (The window and reminder replays
  need no chance control: the agent reads the same messages in the same
  order, so it draws the same chances.) No knob can do this: a
  constraint recap or a wider window hands the agent a constraint it already
  sees, and an anchored agent ignores it all the same.
* **single_turn** - neither one turn, nor the window, nor the reminder fixes
  it (it fails even with everything in one turn).
* **unknown** - nothing to verify.

A target that does not honour a knob a rule needs cannot verify that cause.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

import anyio

from simlab.contracts import SessionSetup, SimulatorFactory, TargetAgent, TargetFactory
from simlab.core import AgentCapabilities, Knobs, derive_seed
from simlab.diagnose._failure import FirstFailure
from simlab.engine import (
    BUILTIN_SCORING,
    Scoring,
    SessionJob,
    SessionLimits,
    run_session,
    session_setup,
)
from simlab.spec import Goal, MindChange, Mode, Persona
from simlab.store import Cause, SessionRecord

NO_ACTION = "no final action"

Replay = Literal[
    "unlimited_window", "instruction_reminder", "one_turn", "one_turn_as_told", "agent_redrawn"
]
"""The counterfactual a replay applies."""

REPLAYS: tuple[Replay, ...] = (
    "unlimited_window",
    "instruction_reminder",
    "one_turn",
    "one_turn_as_told",
    "agent_redrawn",
)
"""Every replay, each run on every failure."""

COUNTERFACTUAL: dict[Cause, Replay] = {
    Cause.TRUNCATION: "unlimited_window",
    Cause.DRIFT: "instruction_reminder",
    Cause.ANCHORING: "one_turn",
    Cause.SINGLE_TURN: "one_turn",
}
"""Each cause's own replay (``unknown`` has none)."""

# cause -> (replays that must fix the failure, replays that must not)
_RULES: dict[Cause, tuple[tuple[Replay, ...], tuple[Replay, ...]]] = {
    Cause.TRUNCATION: (("unlimited_window",), ("instruction_reminder",)),
    Cause.DRIFT: (("instruction_reminder",), ("unlimited_window",)),
    Cause.ANCHORING: (
        ("one_turn",),
        ("one_turn_as_told", "unlimited_window", "instruction_reminder", "agent_redrawn"),
    ),
    Cause.SINGLE_TURN: ((), ("one_turn", "unlimited_window", "instruction_reminder")),
}

_NEEDS: dict[Replay, str | None] = {
    "unlimited_window": "context_window",
    "instruction_reminder": "instruction_reminder",
    "one_turn": None,
    "one_turn_as_told": None,
    "agent_redrawn": None,
}


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """One counterfactual replay to run: the changed job, the knobs, and whether the
    agent's own seed is re-drawn."""

    job: SessionJob
    knobs: Knobs
    redraw_agent: bool = False


def settled_goal(goal: Goal) -> Goal:
    """``goal`` with every mind change folded into its facts (the final wishes) and none left."""
    final = {f.id: f.value for f in goal.facts}
    for change in goal.mind_changes:
        final[change.fact] = change.value
    facts = tuple(f.model_copy(update={"value": final[f.id]}) for f in goal.facts)
    return goal.model_copy(update={"facts": facts, "mind_changes": ()})


def as_told(job: SessionJob, told: Sequence[MindChange]) -> tuple[Persona, Goal]:
    """The persona and goal whose plan, in any mode, makes exactly the mind changes
    ``told`` (those the original session's user stated; see ``told_changes``).

    The plan draws each of a goal's changes with the persona's ``change_mind``, two
    numbers per change whatever the chance; with the goal's changes kept and the chance
    set to 1 (all were stated) or 0 (none was), every other draw of the plan is the
    original's. When only some were stated the goal keeps only those, and the plan's
    later draws (small talk) may differ from the original's.
    """
    goal = job.goal
    if told and len(told) < len(goal.mind_changes):  # some, not all: only those stated
        goal = goal.model_copy(update={"mind_changes": tuple(told)})
    chance = 1.0 if told else 0.0
    traits = job.persona.traits.model_copy(update={"change_mind": chance})
    return job.persona.model_copy(update={"traits": traits}), goal


def told_changes(goal: Goal, record: SessionRecord) -> list[MindChange]:
    """The goal's mind changes the session's user stated, in goal order: a change is
    stated when a user turn disclosed its value for its fact after an earlier value."""
    said: dict[str, list[object]] = {}
    for turn in record.transcript.turns:
        for fact, value in turn.user.disclosed.items():
            said.setdefault(fact, []).append(value)
    out: list[MindChange] = []
    for change in goal.mind_changes:
        values = said.get(change.fact, [])
        if any(v == change.value for v in values[1:]):
            out.append(change)
    return out


def replay_plan(
    job: SessionJob, replay: Replay, told: Sequence[MindChange] | None = None
) -> ReplayPlan:
    """The job and knobs of ``replay`` applied to the original session ``job``.

    ``told``: the mind changes the original session's user stated (``told_changes``),
    which ``one_turn_as_told`` keeps; None keeps the goal's, each with the persona's chance.
    """
    if replay == "unlimited_window":
        return ReplayPlan(job, Knobs(context_window=0))
    if replay == "instruction_reminder":
        return ReplayPlan(job, Knobs(instruction_reminder=True))
    if replay == "agent_redrawn":
        return ReplayPlan(job, Knobs(), redraw_agent=True)
    key = job.key.model_copy(update={"mode": Mode.FULL.value})
    persona, goal = job.persona, job.goal
    if replay == "one_turn":
        goal = settled_goal(goal)
    elif told is not None:
        persona, goal = as_told(job, told)
    return ReplayPlan(SessionJob(key, job.seed, persona, goal, Mode.FULL), Knobs())


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

    def redrawn(setup: SessionSetup) -> TargetAgent:
        return make_target(replace(setup, agent_seed=derive_seed(setup.agent_seed, "redrawn")))

    async def one(plan: ReplayPlan) -> SessionRecord:
        target = redrawn if plan.redraw_agent else make_target
        return await run_session(
            plan.job, target, make_simulator, limits, plan.knobs,
            graders=scoring.graders, grading=scoring.grading, domains=scoring.domains,
        )  # fmt: skip

    return await gather_limited(plans, one, concurrency)


def verdict(cause: Cause, check: str, replay: SessionRecord) -> tuple[bool, str]:
    """Whether one replay came out as ``cause`` predicts, and what it showed.

    This reads one replay alone, so it is not specific (the one-turn replay also
    fixes truncation, drift and impatient users); a diagnosis is verified by
    ``specific_verdict`` over every replay.
    """
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


def fixes(failure: FirstFailure | None, replay: SessionRecord) -> bool | None:
    """Whether ``replay`` fixes the failure; ``None`` when it ended in error (cannot tell).

    A located check is fixed when it passes in the replay (a broken constraint
    also when the replay takes no final action: no action breaks it); a session that never
    took its final action, or one only the judge (or nothing) located, when the
    replay passes.
    """
    if replay.status != "ok":
        return None
    if failure is None or failure.kind in ("completion", "judge"):
        return replay.passed
    got = replay.checks.get(failure.check)
    if got is None:
        return False
    # A broken constraint is gone when no action breaks it, even if none is taken.
    return got.passed or (failure.kind == "constraint" and got.detail == NO_ACTION)


def specific_verdict(
    cause: Cause, fixed: Mapping[Replay, bool | None], missing: Mapping[Replay, str] | None = None
) -> tuple[bool, str]:
    """Whether ``cause`` is verified by the replays' outcomes (see the module docstring).

    Args:
        cause: The cause to verify.
        fixed: For each replay that ran, whether it fixed the failure (``None``: it
            ended in error).
        missing: Replays that could not run, with the knob the target does not honour.

    Returns:
        ``(verified, what the replays showed)``.
    """
    rule = _RULES.get(cause)
    if rule is None:
        return False, "nothing to verify"
    must, must_not = rule
    for replay in (*must, *must_not):
        if missing and replay in missing:
            return False, f"cannot verify: the target does not honour {missing[replay]}"
        if replay not in fixed:
            return False, f"cannot verify: no {replay} replay"
        if fixed[replay] is None:
            return False, f"the {replay} replay ended in error: cannot tell"
    shown = _shown(fixed)
    bad = [r for r in must if not fixed[r]] + [r for r in must_not if fixed[r]]
    if bad:
        return False, f"not specific to {cause.value}: {shown}"
    return True, shown


def _shown(fixed: Mapping[Replay, bool | None]) -> str:
    yes = [r for r in REPLAYS if fixed.get(r)]
    no = [r for r in REPLAYS if r in fixed and fixed[r] is False]
    parts = []
    if yes:
        parts.append("fixed by " + ", ".join(yes))
    if no:
        parts.append("not by " + ", ".join(no))
    return "; ".join(parts) or "no replay ran"

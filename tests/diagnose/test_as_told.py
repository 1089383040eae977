"""The anchoring control replays the conversation as the user told it: the mind changes
the session's user stated, and only those, even though a persona changes its mind only
with a chance that another mode's plan would draw again."""

from __future__ import annotations

import anyio

from simlab.agents.reference import PRESETS, ReferenceAgent
from simlab.contracts import SessionSetup, UserSimulator
from simlab.core import SessionKey
from simlab.diagnose import replay_plan, told_changes
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.simulators import DisclosurePlan, ScriptedSimulator
from simlab.spec import MindChange, Mode
from tests.diagnose.test_run import GOALS, PERSONAS


def _planned(job: SessionJob, mode: Mode) -> list[tuple[str, object]]:
    plan = DisclosurePlan.draw(job.persona.traits, job.goal, mode, job.seed)
    return [(c.fact, c.value) for c in plan.changes]


def test_the_control_makes_exactly_the_changes_the_user_stated() -> None:
    persona, goal = PERSONAS["fickle_en"], GOALS["one_way"]
    assert 0 < persona.traits.change_mind < 1 and goal.mind_changes
    redrawn_differs = 0
    for seed in range(200):
        key = SessionKey(persona=persona.id, goal=goal.id, mode="sharded", rep=seed)
        job = SessionJob(key, seed, persona, goal, Mode.SHARDED)
        stated = _planned(job, Mode.SHARDED)
        told = [MindChange(fact=f, value=v) for f, v in stated]
        control = replay_plan(job, "one_turn_as_told", told).job
        assert control.mode is Mode.FULL
        assert _planned(control, Mode.FULL) == stated, seed
        # the goal's changes drawn again in full mode, at the persona's own chance
        redrawn_differs += _planned(replay_plan(job, "one_turn_as_told").job, Mode.FULL) != stated
    assert redrawn_differs > 10  # what the control did before: a change left out or added


def _sim(setup: SessionSetup) -> UserSimulator:
    return ScriptedSimulator(setup.persona, setup.goal, setup.mode, setup.user_seed)


def test_told_changes_reads_the_changes_off_the_transcript() -> None:
    persona, goal = PERSONAS["fickle_en"], GOALS["one_way"]
    (change,) = goal.mind_changes
    first = next(f.value for f in goal.facts if f.id == change.fact)

    def target(setup: SessionSetup) -> ReferenceAgent:
        return ReferenceAgent(PRESETS["v2"], setup.agent_seed)

    told = 0
    for seed in range(16):
        key = SessionKey(persona=persona.id, goal=goal.id, mode="sharded", rep=seed)
        job = SessionJob(key, seed, persona, goal, Mode.SHARDED)
        record = anyio.run(run_session, job, target, _sim, SessionLimits(20, 5))
        said = [t.user.disclosed[change.fact] for t in record.transcript.turns
                if change.fact in t.user.disclosed]  # fmt: skip
        assert said in ([first], [first, change.value]), (seed, said)
        stated = told_changes(goal, record)
        assert stated == ([change] if len(said) == 2 else []), (seed, said)
        told += bool(stated)
    assert 8 <= told < 16  # change_mind 0.8

"""Each session record carries its planned length, whatever agent it met."""

from __future__ import annotations

from pathlib import Path

import anyio

from simlab.agents.reference import reference_agent
from simlab.engine import SessionLimits, expand, run_session, simulator_factory
from simlab.engine import session_setup as setup_of
from simlab.simulators import planned_turns
from simlab.spec import Suite, load_goals, load_personas
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]
LIMITS = SessionLimits(max_turns=20, turn_timeout_s=30)


def test_the_planned_length_is_the_plans_whatever_the_agent_does() -> None:
    suite = Suite(personas=["fickle_en", "impatient_vi"], goals=["one_way", "refund"], reps=3)
    jobs = expand(suite, load_personas([ROOT / "personas"]), load_goals([ROOT / "goals"]))
    realised_differ = 0
    for job in jobs:
        records = [
            anyio.run(
                run_session,
                job,
                lambda s, v=version: reference_agent(v, s.agent_seed),
                simulator_factory(suite),
                LIMITS,
            )
            for version in ("v1", "v2")
        ]
        setup = setup_of(job)
        planned = planned_turns(job.persona, job.goal, job.mode, setup.user_seed)
        assert [r.planned_turns for r in records] == [planned, planned]
        realised_differ += records[0].n_user_turns != records[1].n_user_turns
    assert realised_differ > 0  # the agents did make the sessions differ


def test_a_version_1_record_reads_as_unplanned() -> None:
    old = {
        "schema_version": 1,
        "key": {"persona": "p", "goal": "g", "mode": "full", "rep": 0},
        "seed": 1,
        "status": "ok",
        "stop_reason": "goal_reached",
        "n_user_turns": 3,
        "score": 100.0,
        "passed": True,
    }
    record = SessionRecord.model_validate(old)
    assert record.planned_turns is None and record.n_user_turns == 3

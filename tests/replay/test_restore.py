"""Prefix replay of a stateful target: restoring state reproduces the recorded failures."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from run_simlab import simlab

from simlab.agents.reference import ReferenceAgent, reference_agent
from simlab.contracts import RestorableTarget, SessionSetup, TargetAgent
from simlab.core import AgentReply, Message, SessionContext
from simlab.graders import action_view, final_action, satisfies
from simlab.replay import (
    PrefixCase,
    PrefixResult,
    case_from_record,
    failing_turn_of,
    reproduction_rate,
    run_prefix_case,
)
from simlab.spec import load_goals
from simlab.store import SessionRecord, read_sessions

ROOT = Path(__file__).resolve().parents[2]


def _simlab(*args: str) -> subprocess.CompletedProcess[str]:
    return simlab(*args)


@pytest.fixture(scope="module")
def v1_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """v1 on one stateful goal: it proposes, anchors on its proposal and books it."""
    tmp = tmp_path_factory.mktemp("restore")
    suite = tmp / "suite.yaml"
    suite.write_text(
        "reps: 8\npersonas: [chatty_en]\ngoals: [change_date, one_way]\nmodes: [sharded]\n"
        f"persona_dirs: ['{ROOT / 'personas'}']\ngoal_dirs: ['{ROOT / 'goals'}']\n"
        "target: reference:v1\n"
    )
    proc = _simlab("run", str(suite), "--out", str(tmp / "out"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = list((tmp / "out").iterdir())
    return run_dir


def _failures(run_dir: Path) -> tuple[list[SessionRecord], list[PrefixCase]]:
    goals = load_goals([ROOT / "goals"])
    failed = [r for r in read_sessions(run_dir).records if r.status == "ok" and not r.passed]
    cases = [case_from_record(r, r.key.id, goals[r.key.goal]) for r in failed]
    return failed, [c for c in cases if c is not None]


class _Forgetful:
    """The same agent without its restore: a fresh instance given the prefix as history."""

    def __init__(self, agent: ReferenceAgent) -> None:
        self._agent = agent
        self.capabilities = agent.capabilities

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        return await self._agent.reply(history, ctx)


def _replay_all(
    cases: list[PrefixCase], make: type[_Forgetful] | None = None, k: int = 5
) -> list[PrefixResult]:
    def target(setup: SessionSetup) -> TargetAgent:
        agent = reference_agent("v1", setup.agent_seed)
        return agent if make is None else make(agent)

    async def run() -> list[PrefixResult]:
        return [await run_prefix_case(c, target, k, seed=3) for c in cases]

    return anyio.run(run)


def test_restoring_state_reproduces_the_recorded_breaks_and_a_fresh_agent_does_not(
    v1_run: Path,
) -> None:
    failed, cases = _failures(v1_run)
    assert len(failed) >= 8 and len(cases) == len(failed)
    restored = reproduction_rate(results := _replay_all(cases))
    forgetful = reproduction_rate(_replay_all(cases, _Forgetful))
    assert restored.n >= 8 and restored.n == forgetful.n
    assert isinstance(reference_agent("v1", 0), RestorableTarget)
    # re-lived with the logged session's seed, every reply is the logged one
    assert all(r.restored == 5 and r.diverged == 0 for r in results)
    assert restored.rate is not None and restored.rate >= 0.8
    assert restored.ci[0] > 0.5  # "most", with its interval
    # without its state the agent proposes afresh and waits: no action, no break
    assert forgetful.rate is not None and forgetful.rate <= 0.2
    assert forgetful.restored == 0


def test_a_restore_says_where_its_replies_depart_from_the_log(v1_run: Path) -> None:
    _, cases = _failures(v1_run)
    case = next(c for c in cases if c.n_user_turns >= 3)
    assert case.agent_seed is not None
    agent = reference_agent("v1", 99)
    ctx = SessionContext("restore", case.agent_seed, case.n_user_turns)
    report = anyio.run(agent.restore, case.prefix, ctx)
    assert (report.user_turns, report.diverged_at) == (case.n_user_turns - 1, None)
    tampered = list(case.prefix)
    second = [i for i, m in enumerate(tampered) if m.role == "assistant"][1]
    tampered[second] = Message(role="assistant", text="Something else entirely.")
    report = anyio.run(reference_agent("v1", 99).restore, tampered, ctx)
    assert report.diverged_at == 2


def test_the_failing_turn_is_the_action_that_broke_the_value_in_force(v1_run: Path) -> None:
    failed, _ = _failures(v1_run)
    goals = load_goals([ROOT / "goals"])
    broke_in_force = 0
    for record in failed:
        goal = goals[record.key.goal]
        turn = failing_turn_of(record, goal)
        action = final_action(goal, record.transcript)
        assert turn is not None and action is not None
        acted, call = action
        in_force: dict[str, object] = {}
        for t in record.transcript.turns[:acted]:
            in_force.update(t.user.disclosed)
        broken = [
            c
            for c in goal.constraints
            if c.fact in in_force and not satisfies(c, action_view(call), in_force[c.fact])
        ]
        if broken:  # the booking broke what the user had already said: that reply failed
            broke_in_force += 1
            assert turn <= acted, (record.key.id, turn, acted)
        else:  # a value stated after the booking, never acted on: the turn that stated it
            assert turn > acted and record.transcript.turns[turn - 1].user.disclosed
    assert broke_in_force >= len(failed) // 2


def test_reproduction_rate_by_hand() -> None:
    def result(logged: str | None, broken: int, no_action: int) -> PrefixResult:
        return PrefixResult(
            case_id="c",
            seed=0,
            kept=10 - broken - no_action,
            broken=broken,
            no_action=no_action,
            errors=0,
            ci=(0.0, 1.0),
            continuations=[],
            logged=logged,  # type: ignore[arg-type]
        )

    rate = reproduction_rate(
        [
            result("broken", 6, 0),  # 6 of 10 break again: reproduced
            result("broken", 5, 5),  # 5 of 10: not most
            result("broken", 10, 0),
            result("no_action", 0, 10),  # broke nothing when logged: left out
        ]
    )
    assert (rate.reproduced, rate.n, rate.not_breaks) == (2, 3, 1)
    # Wilson 95% for 2/3: centre (2/3 + z²/6) / (1 + z²/3), half-width
    # z·sqrt(2/27 + z²/36) / (1 + z²/3), z = 1.95996: [0.2077, 0.9385]
    assert rate.ci == pytest.approx((0.2077, 0.9385), abs=1e-4)


def test_replay_cli_prints_the_reproduction_rate(v1_run: Path) -> None:
    proc = _simlab("replay", str(v1_run), "--k", "3")
    assert proc.returncode == 0, proc.stderr
    found = re.search(
        r"reproduced (\d+) of (\d+) recorded constraint breaks: [\d.]+% \[[\d.]+%, [\d.]+%\] "
        r"\(Wilson 95%, n=(\d+) cases",
        proc.stdout,
    )
    assert found is not None, proc.stdout[-2000:]
    hits, n, n_again = map(int, found.groups())
    assert n == n_again and hits * 2 > n
    assert "the target rebuilt its state from the prefix in" in proc.stdout

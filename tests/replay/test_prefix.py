"""Prefix replay: cutting, constraints, keep-rate of v1 vs v2, cases as YAML, the CLI."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from simlab.agents.reference import reference_agent
from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import AgentReply, Check, Message, SessionContext, ToolCall, Transcript
from simlab.replay import (
    KeptConstraint,
    PrefixCase,
    PrefixResult,
    broken_constraints,
    case_from_record,
    constraints_from_messages,
    cut_prefix,
    failing_turn_of,
    import_logs,
    load_prefix_case,
    replay_cli,
    run_prefix_case,
    save_prefix_case,
)
from simlab.spec import SpecError
from simlab.store import SessionRecord

DATA = Path(__file__).parent / "data"


def _case() -> PrefixCase:
    [record] = import_logs(DATA / "prefix_log.jsonl", "openai").records
    case = case_from_record(record, record.meta["source"])
    assert case is not None
    return case


def _v(version: str) -> Callable[[SessionSetup], TargetAgent]:
    def make(setup: SessionSetup) -> TargetAgent:
        return reference_agent(version, setup.agent_seed)

    return make


def test_cut_before_the_failing_turn_and_constraints_from_the_users_words() -> None:
    case = _case()
    assert case.failing_turn == 5
    assert case.n_user_turns == 5
    assert case.prefix[-1].role == "user"
    assert case.prefix[-1].text == "2 adults, no children."
    assert len(case.prefix) == 9  # five user messages, the four agent replies between them
    assert case.logged_reply is not None and "VJ1080" in case.logged_reply.text
    kept = {c.fact: (c.value, c.op, c.turn) for c in case.constraints}
    assert kept == {
        "latest_departure": ("12:00", "le", 1),
        "budget": (160, "le", 1),
        "origin": ("HAN", "eq", 2),
        "destination": ("DAD", "eq", 3),
        "date": ("2026-12-20", "eq", 4),
        "passengers": (2, "eq", 5),
        "children": (0, "eq", 5),
    }


def test_a_later_statement_overrides_an_earlier_one() -> None:
    found = constraints_from_messages(
        [
            Message(role="user", text="My budget is 200 USD."),
            Message(role="assistant", text="Noted."),
            Message(role="user", text="Actually, max 150 USD."),
        ]
    )
    assert [(c.fact, c.value, c.turn) for c in found] == [("budget", 150, 2)]


def test_grading_a_continuation() -> None:
    late = KeptConstraint(
        fact="latest_departure",
        slot="latest_departure",
        value="12:00",
        op="le",
        fields=["dep_time"],
        turn=1,
    )
    budget = KeptConstraint(
        fact="budget", slot="budget", value=160, op="le", fields=["total_price"], turn=1
    )
    proposal = AgentReply(text="Flight VJ1080 departing at 20:30 for 2 adults: 106 USD in total.")
    assert broken_constraints(proposal, [late, budget]) == [
        "reply states latest_departure '20:30', breaking latest_departure <= 12:00 (turn 1)"
    ]
    # naming the limit itself is discussing it, not breaking it
    refusal = AgentReply(text="The cheapest costs 180 USD, more than your limit of 160 USD.")
    assert broken_constraints(refusal, [budget]) == []
    booking = AgentReply(
        text="Done.",
        tool_calls=[
            ToolCall(name="search_flights", args={"origin": "DAD"}),  # a lookup: not judged
            ToolCall(name="hold_booking", args={"flight_id": "X"}, result={"total_price": 170}),
        ],
    )
    assert broken_constraints(booking, [budget], final_tool="hold_booking") == [
        "hold_booking total_price=170 breaks budget <= 160 (turn 1)"
    ]
    assert broken_constraints(AgentReply(text="Which date?"), [late, budget]) == []


def test_v1_breaks_what_v2_does_not_and_not_acting_is_not_keeping() -> None:
    case = _case()

    async def both() -> tuple[PrefixResult, PrefixResult]:
        return (
            await run_prefix_case(case, _v("v1"), k=20, seed=7),
            await run_prefix_case(case, _v("v2"), k=20, seed=7),
        )

    v1, v2 = anyio.run(both)
    assert v1.logged == "broken"  # the logged reply offered a 20:30 flight
    # v1 keeps 4 user turns in context: turn 1's "leave by 12:00" is gone, it offers 20:30
    assert (v1.broken, v1.kept, v1.no_action, v1.errors) == (20, 0, 0, 0)
    assert "dep_time '20:30'" in v1.continuations[0].broken[0]
    assert v1.reproduced is True
    # v2 proposes the 10:15 flight and waits for a go-ahead: it took no action,
    # so it is "no action", neither kept nor counted in the keep-rate
    assert (v2.broken, v2.kept, v2.no_action, v2.errors) == (0, 0, 20, 0)
    assert "10:15" in v2.continuations[0].text
    assert v2.continuations[0].outcome == "no_action" and v2.continuations[0].kept is None
    assert v2.keep_rate is None and v2.n == 0 and v2.graded == 20
    assert v2.reproduced is False
    # Wilson 95%: 0/20 -> [0, 0.1611]
    assert v1.ci == pytest.approx((0.0, 0.16113), abs=1e-4)
    # the reference agent re-lived the imported prefix: its own first reply is
    # worded unlike the logged agent's, and it says so
    assert v1.restored == 20 and v1.diverged == 20
    restored = v1.continuations[0].restored
    assert restored is not None and (restored.user_turns, restored.diverged_at) == (4, 1)


def test_an_action_that_keeps_the_constraints_is_kept() -> None:
    case = _case()
    # v2's own proposal, then the user's go-ahead: restored, v2 books what it proposed
    proposal = anyio.run(run_prefix_case, case, _v("v2"), 1, 7).continuations[0].text
    go = case.model_copy(
        update={
            "prefix": [
                *case.prefix,
                Message(role="assistant", text=proposal),
                Message(role="user", text="Yes, please book it."),
            ],
            "final_tool": "hold_booking",
        }
    )
    v2 = anyio.run(run_prefix_case, go, _v("v2"), 5, 7)
    assert (v2.kept, v2.broken, v2.no_action) == (5, 0, 0)
    assert v2.keep_rate == 1.0
    assert v2.continuations[0].tool_calls[-1].name == "hold_booking"


def test_replays_get_distinct_seeds_and_target_errors_are_not_breaks() -> None:
    case = _case()

    class Broken:
        capabilities = reference_agent("v2", 0).capabilities

        async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
            raise RuntimeError("down")

    seeds: list[int] = []

    def make(setup: SessionSetup) -> TargetAgent:
        seeds.append(setup.agent_seed)
        return Broken()

    result = anyio.run(run_prefix_case, case, make, 5, 1)
    assert (result.kept, result.n, result.errors) == (0, 0, 5)
    assert result.restored == 0  # not a RestorableTarget: the prefix is its history only
    assert result.keep_rate is None
    assert result.continuations[0].error == "RuntimeError: down"
    assert len(set(seeds)) == 5


def _with(record: SessionRecord, **changes: Any) -> SessionRecord:
    """``record`` copied with ``changes`` (checks merged in), validated as a new record."""
    checks = {**record.checks, **changes.pop("checks", {})}
    return SessionRecord.model_validate({**dict(record), "checks": checks, **changes})


def test_failing_turn_from_graders() -> None:
    [record] = import_logs(DATA / "prefix_log.jsonl", "openai").records
    assert failing_turn_of(record) == 5  # the logged failing turn
    meta = {k: v for k, v in record.meta.items() if k != "failing_turn"}
    record = _with(record, meta=meta)
    assert failing_turn_of(record) == 5  # the outcome check carries it too
    record = _with(record, checks={"outcome": Check(passed=False, detail="reward 0 < 1")})
    assert failing_turn_of(record) is None
    # a broken constraint stated in turn 1 fails at the first turn that acts after it
    turns = list(record.transcript.turns)
    agent = turns[3].agent
    assert agent is not None
    calls = (*agent.tool_calls, ToolCall(name="search_flights", args={}))
    turns[3] = turns[3].model_copy(update={"agent": agent.model_copy(update={"tool_calls": calls})})
    record = _with(
        record,
        transcript=Transcript(turns=tuple(turns)),
        checks={"constraint:latest_departure": Check(passed=False, detail="", turn=1)},
    )
    assert failing_turn_of(record) == 4
    record = _with(record, checks={"trajectory": Check(passed=False, detail="", turn=2)})
    assert failing_turn_of(record) == 2
    with pytest.raises(ValueError, match="not a user turn"):
        cut_prefix(record.transcript, 9)


def test_case_yaml_round_trip_and_errors(tmp_path: Path) -> None:
    case = _case()
    path = save_prefix_case(case, tmp_path)
    assert path.name == "imported_one_way_late_imported_0_turn5.yaml"
    assert load_prefix_case(path) == case
    goal = case.as_goal()
    assert {f.id for f in goal.facts} >= {"budget", "latest_departure"}
    bad = tmp_path / "bad.yaml"
    bad.write_text(path.read_text().replace("failing_turn: 5", "failing_turn: 0\nextra: 1"))
    with pytest.raises(SpecError) as err:
        load_prefix_case(bad)
    text = str(err.value)
    assert "failing_turn" in text and "extra" in text


def test_replay_cli_on_a_log_and_on_saved_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases"
    argv = [str(DATA / "prefix_log.jsonl"), "--target", "reference:v1", "--k", "6"]
    assert replay_cli([*argv, "--seed", "3", "--save-cases", str(cases)]) == 0
    out = capsys.readouterr().out
    assert "imported_one_way_late_imported_0_turn5" in out and "0.0% of 6" in out
    assert "reproduced 1 of 1 recorded constraint breaks: 100.0% [20.7%, 100.0%]" in out
    assert len(list(cases.glob("*.yaml"))) == 1
    assert replay_cli([str(cases), "--target", "reference:v2", "--k", "6"]) == 0
    out = capsys.readouterr().out
    assert "reproduced 0 of 1 recorded constraint breaks: 0.0% [0.0%, 79.3%]" in out
    assert replay_cli([str(tmp_path / "missing.jsonl")]) == 2
    assert replay_cli([str(DATA / "openai_trials.jsonl")]) == 1  # failures with no failing turn

"""Frozen all the way down: what a run hands out cannot be changed for anyone else.

Each test is a wrong result that sharing mutable data made possible (a check changed on
one record showing on others, a turn appended to a shared empty transcript, a tool
call's arguments edited after the session was graded); now the change raises, and a
copy changes only itself.
"""

from __future__ import annotations

import pytest
from frozendict import frozendict
from pydantic import ValidationError

import simlab
from simlab.agents.reference import reference_agent
from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.store import SessionRecord, read_sessions


class _Agent:
    """The reference agent with its defects fixed: it calls tools and books."""

    def __init__(self) -> None:
        self._inner = reference_agent("v2", 7)

    async def reply(self, history: object, ctx: object) -> AgentReply:
        return await self._inner.reply(history, ctx)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> simlab.RunResult:
    persona = simlab.Persona.model_validate(
        {"id": "direct_en", "name": "Direct", "language": "en",
         "traits": {"patience": 10, "disclosure": "batch", "style": "terse"}}
    )  # fmt: skip
    goal = simlab.Goal.model_validate(
        {
            "id": "one_way_code",
            "title": "One-way flight",
            "final_tool": "hold_booking",
            "facts": [
                {"id": "origin", "slot": "origin", "value": "HAN"},
                {"id": "destination", "slot": "destination", "value": "DAD"},
                {"id": "date", "slot": "date", "value": "2026-12-20"},
                {"id": "passengers", "slot": "passengers", "value": 1},
            ],
            "constraints": [{"fact": "date", "field": "date"}],
            "expected_tools": ["search_flights", "hold_booking"],
        }
    )
    suite = simlab.Suite(name="frozen", modes=[simlab.Mode.FULL], reps=4, seed=5)
    out = tmp_path_factory.mktemp("runs")
    return simlab.run(
        suite, target=_Agent, personas=[persona], goals=[goal], out=out, progress=False
    )


def test_a_records_check_cannot_be_changed_and_a_copy_changes_only_itself(
    run: simlab.RunResult,
) -> None:
    records = run.records
    assert len(records) == 4 and all(r.status == "ok" for r in records)
    details = [r.checks["goal_completed"].detail for r in records]
    check = records[0].checks["goal_completed"]
    with pytest.raises(ValidationError, match="frozen"):
        check.detail = "changed on one record"
    with pytest.raises(TypeError):
        records[0].checks["goal_completed"] = check.model_copy(update={"detail": "x"})  # type: ignore[index]
    copy = check.model_copy(update={"detail": "x"})
    assert copy.detail == "x" and copy is not check
    assert [r.checks["goal_completed"].detail for r in records] == details
    assert "x" not in details
    with pytest.raises(ValidationError, match="frozen"):
        records[1].passed = not records[1].passed


def test_a_slim_records_transcript_cannot_grow_and_a_later_read_is_still_empty(
    run: simlab.RunResult,
) -> None:
    slim = read_sessions(run.run_dir, slim=True).records
    transcript = slim[0].transcript
    assert transcript.turns == () and isinstance(transcript.turns, tuple)
    turn = Turn(index=1, user=UserTurn(text="a turn from nowhere"))
    with pytest.raises(AttributeError):
        transcript.turns.append(turn)  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="frozen"):
        transcript.turns = (turn,)
    assert all(r.transcript.turns == () for r in slim)
    assert all(r.transcript.turns == () for r in read_sessions(run.run_dir, slim=True).records)
    full = simlab.read_run(run.run_dir).records
    assert all(isinstance(r.transcript.turns, tuple) and r.transcript.turns for r in full)


def test_a_tool_calls_arguments_and_result_are_frozen(run: simlab.RunResult) -> None:
    calls = [call for r in run.records for _, call in r.transcript.tool_calls()]
    assert calls, "the agent made no tool call"
    for call in calls:
        assert isinstance(call.args, frozendict)
        with pytest.raises(TypeError):
            call.args["x"] = 1  # type: ignore[index]
    searched = next(c for c in calls if c.name == "search_flights")
    assert isinstance(searched.result, tuple)  # the flights found, a list in the JSON
    assert all(isinstance(row, frozendict) for row in searched.result)
    with pytest.raises(TypeError):
        searched.result[0]["price"] = 0
    made = ToolCall(name="f", args={"a": [1, {"b": [2]}]}, result=[{"c": 3}])
    assert made.args == {"a": (1, {"b": (2,)})} and isinstance(made.args["a"][1], frozendict)
    assert made.result == ({"c": 3},)


def test_a_record_read_back_is_frozen_like_the_one_written(run: simlab.RunResult) -> None:
    record = run.records[0]
    back = SessionRecord.model_validate_json(record.model_dump_json())
    assert back == record
    assert isinstance(back.meta, frozendict) and isinstance(back.checks, frozendict)
    assert isinstance(back.agent_turn_s, tuple)
    assert all(isinstance(t.user.disclosed, frozendict) for t in back.transcript.turns)
    with pytest.raises(TypeError):
        back.meta["note"] = "added after the run"  # type: ignore[index]


def test_a_transcript_built_from_lists_holds_tuples() -> None:
    reply = AgentReply(text="ok", tool_calls=[ToolCall(name="f")], meta={"k": [1]})
    transcript = Transcript(turns=[Turn(index=1, user=UserTurn(text="hi"), agent=reply)])
    assert isinstance(transcript.turns, tuple)
    agent = transcript.turns[0].agent
    assert agent is not None and isinstance(agent.tool_calls, tuple)
    assert agent.meta == {"k": (1,)}

"""Tool-use figures: recorded per session, averaged with intervals, labelled, rendered."""

from __future__ import annotations

import json

import anyio
import pytest

from simlab.core import AgentReply, SessionKey, ToolCall, Transcript, Turn, UserTurn
from simlab.engine import run_session
from simlab.graders import redundant_calls, tool_use
from simlab.report import render_markdown, summarize
from simlab.report._tool_use import GAVE_UP_EARLY, OFF_TRACK, WASTEFUL, label
from simlab.spec import Goal
from simlab.store import SCHEMA_VERSION, RunSummary, SessionRecord, StopReason, ToolUse
from tests.engine.test_session import JOB, LIMITS, Agent, Sim
from tests.report.conftest import BUCKETS


def _record(persona: str, rep: int, use: ToolUse, passed: bool = True) -> SessionRecord:
    return SessionRecord(
        key=SessionKey(persona=persona, goal="g", mode="full", rep=rep),
        seed=rep,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=3,
        score=100.0 if passed else 0.0,
        passed=passed,
        tool_use=use,
        agent_turn_s=[0.01 * (rep + 1)],
    )


# the seed's refund example: lookup, policy, refund expected
DOUBLE_LOOKUP = ToolUse(expected=3, calls=4, lcs=3)  # precision 3/4, recall 1
ONLY_LOOKUP = ToolUse(expected=3, calls=1, lcs=1)  # precision 1, recall 1/3
GREETING_NO_CALL = ToolUse(expected=0, calls=0, lcs=0)  # 1, 1
GREETING_WITH_CALL = ToolUse(expected=0, calls=1, lcs=0)  # precision 0, recall 1


def test_precision_recall_and_labels_hand_computed() -> None:
    assert (DOUBLE_LOOKUP.precision, DOUBLE_LOOKUP.recall) == (0.75, 1.0)
    assert (ONLY_LOOKUP.precision, ONLY_LOOKUP.recall) == (1.0, pytest.approx(1 / 3))
    assert (GREETING_NO_CALL.precision, GREETING_NO_CALL.recall) == (1.0, 1.0)
    assert (GREETING_WITH_CALL.precision, GREETING_WITH_CALL.recall) == (0.0, 1.0)
    assert label(0.75, 1.0) == WASTEFUL
    assert label(1.0, 1 / 3) == GAVE_UP_EARLY
    assert label(0.5, 0.5) == OFF_TRACK
    assert label(1.0, 1.0) is None


def test_summary_means_per_persona_goal_and_run_with_intervals() -> None:
    uses = [DOUBLE_LOOKUP, ONLY_LOOKUP, GREETING_NO_CALL, GREETING_WITH_CALL]
    records = [_record("a", i, u) for i, u in enumerate(uses)]
    records.append(_record("b", 0, GREETING_NO_CALL))
    t = summarize(records, BUCKETS, seed=1)["trajectory"]
    a = t["by_persona"]["a"]
    assert a["n"] == 4 and a["n_no_calls_expected"] == 2
    assert a["precision"] == pytest.approx((0.75 + 1 + 1 + 0) / 4)
    assert a["recall"] == pytest.approx((1 + 1 / 3 + 1 + 1) / 4, abs=1e-4)
    lo, hi = a["precision_ci"]
    assert lo < a["precision"] < hi and lo >= 0.0 and hi <= 1.0
    assert a["label"] == WASTEFUL  # mean precision 0.69 is low, mean recall 0.83 is not
    assert (a["wasteful"]["count"], a["gave_up_early"]["count"]) == (2, 1)
    assert t["by_persona"]["b"]["precision"] == 1.0 and t["by_persona"]["b"]["label"] is None
    assert t["overall"]["n"] == 5 and t["by_goal"]["g"]["n"] == 5
    assert t["overall"]["precision"] == pytest.approx((2.75 + 1) / 5)


def test_report_prints_the_trajectory_and_efficiency_tables() -> None:
    records = [_record("a", i, DOUBLE_LOOKUP) for i in range(10)]  # turns of 10..100 ms
    text = render_markdown(
        RunSummary.model_validate(summarize(records, BUCKETS, seed=1)), title="t"
    )
    assert "## Tool-call trajectory" in text
    assert "| overall | 10 | 0.75 (no spread in n=10) | 1.00 (no spread in n=10) | " in text
    # median of 10..100 ms is 55; its order-statistic interval for n=10 is [x(2), x(9)]
    assert "| agent turn latency p50 | 55.0 ms [20.0, 90.0] | 10 |" in text


def test_redundant_calls_count_identical_calls_made_more_than_twice() -> None:
    search = ToolCall(name="search", args={"to": "HAN"})
    other = ToolCall(name="search", args={"to": "SGN"})
    assert redundant_calls([search, search]) == 0  # one retry is free
    assert redundant_calls([search, search, search]) == 2
    assert redundant_calls([search, other, search, other]) == 0  # other arguments
    goal = Goal.model_validate(
        {
            "id": "g",
            "title": "g",
            "final_tool": "hold",
            "facts": [{"id": "to", "slot": "destination", "value": "HAN"}],
            "expected_tools": ["search", "hold"],
        }
    )
    reply = AgentReply(text="ok", tool_calls=[search, search, search, ToolCall(name="hold")])
    transcript = Transcript(turns=[Turn(index=1, user=UserTurn(text="hi"), agent=reply)])
    assert tool_use(goal, transcript) == ToolUse(expected=2, calls=4, lcs=2, redundant=2)


def test_a_session_records_its_agent_turn_latencies_and_tool_use() -> None:
    record = anyio.run(run_session, JOB, lambda s: Agent(refund_on=2), lambda s: Sim(), LIMITS)
    assert len(record.agent_turn_s) == 2  # two answered turns; the closing DONE has none
    assert all(t >= 0 for t in record.agent_turn_s)
    assert record.tool_use == ToolUse(expected=1, calls=1, lcs=1)


def test_a_schema_3_record_reads_on_without_the_new_fields() -> None:
    line = {
        "schema_version": 3,
        "key": {"persona": "p", "goal": "g", "mode": "full", "rep": 0},
        "seed": 1,
        "status": "ok",
        "stop_reason": "goal_reached",
        "n_user_turns": 2,
        "score": 100.0,
        "passed": True,
    }
    record = SessionRecord.model_validate_json(json.dumps(line))
    assert record.agent_turn_s == () and record.tool_use is None and record.tool_stages is None
    assert SCHEMA_VERSION >= 4  # read on by every later simlab
    s = summarize([record], BUCKETS, seed=1)
    assert s["trajectory"]["overall"]["n"] == 0  # not counted, not invented
    assert s["efficiency"]["latency_turn_s"]["n"] == 0

"""The report says when the target's tool calls came without their results."""

from __future__ import annotations

from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.report import render_markdown, summarize
from simlab.store import RunSummary, SessionRecord
from tests.report.conftest import BUCKETS, record


def _with_replies(rep: int, *replies: AgentReply) -> SessionRecord:
    turns = [
        Turn(index=i + 1, user=UserTurn(text="hi"), agent=reply) for i, reply in enumerate(replies)
    ]
    return record("p", "full", rep, 0, len(turns), transcript=Transcript(turns=turns))


UNREPORTED = AgentReply(
    text="done",
    tool_calls=[ToolCall(name="lookup"), ToolCall(name="close")],
    meta={"tool_results": "not_reported"},
)
REPORTED = AgentReply(text="done", tool_calls=[ToolCall(name="close", result={"id": 1})])


def test_unreported_calls_are_counted_by_session_and_named_in_the_report() -> None:
    records = [
        _with_replies(0, AgentReply(text="which one?"), UNREPORTED),
        _with_replies(1, REPORTED),
        _with_replies(2, UNREPORTED, UNREPORTED),
    ]
    summary = summarize(records, BUCKETS, seed=0, n_resamples=50)
    assert summary["tool_results"] == {
        "calls": 7,
        "unreported_calls": 6,
        "unreported_sessions": 2,
        "examples": ["p/g/full/0", "p/g/full/2"],
    }
    text = render_markdown(RunSummary.model_validate(summary), "run")
    assert "Tool results not reported: the target sent 6 of its 7 tool calls" in text
    assert "docs/http-targets.md" in text


def test_a_run_whose_results_were_all_reported_says_nothing() -> None:
    summary = summarize([_with_replies(0, REPORTED)], BUCKETS, seed=0, n_resamples=50)
    assert summary["tool_results"]["unreported_calls"] == 0
    assert "Tool results not reported" not in render_markdown(
        RunSummary.model_validate(summary), "run"
    )

"""Anthropic Messages and OpenTelemetry GenAI imports."""

from __future__ import annotations

from pathlib import Path

from simlab.core import freeze
from simlab.replay import ImportOptions, import_logs

DATA = Path(__file__).parent / "data"


def test_anthropic_blocks_tool_use_and_results() -> None:
    logs = import_logs(DATA / "anthropic.jsonl", "anthropic")
    assert logs.summary_line() == "2 imported, 1 skipped"
    [problem] = logs.problems
    assert problem.location == f"{DATA / 'anthropic.jsonl'}:2"
    assert "block 0: tool_use has no name" in problem.message
    record = logs.records[0]
    assert record.meta["system"] == "You are a booking agent."
    # tool_result-only user messages open no turn
    assert record.n_user_turns == 2
    agent = record.transcript.turns[0].agent
    assert agent is not None
    assert agent.text == "Let me check.\nThe refund failed: the window is closed."
    lookup, refund = agent.tool_calls
    assert (lookup.name, lookup.args, lookup.result) == (
        "get_booking",
        {"booking_ref": "QX7K2P"},
        {"ref": "QX7K2P", "fare": 120},
    )
    assert (refund.name, refund.result, refund.error) == ("refund", None, "refund window closed")
    assert [r.key.rep for r in logs.records] == [0, 1]  # trials numbered per task in file order
    assert [r.passed for r in logs.records] == [True, False]


def test_otel_three_semconv_generations() -> None:
    logs = import_logs(DATA / "otel_genai.jsonl", "otel")
    assert logs.summary_line() == "3 imported, 1 skipped"
    assert logs.problems[0].location == f"{DATA / 'otel_genai.jsonl'}:5"
    assert "resourceSpans" in logs.problems[0].message
    new, events, legacy = logs.records

    # 1.37+: two records, three spans, one conversation id; history resent each call
    assert new.key.id == "imported/one_way/imported/0"
    assert new.meta["source"].endswith("otel_genai.jsonl:1 (conversation conv-A)")
    assert new.meta["system"] == "Be brief."
    assert [t.user.text for t in new.transcript.turns] == [
        "Flight from Hanoi to Da Nang on 20 December for 2 adults.",
        "Yes please.",
    ]
    first = new.transcript.turns[0].agent
    assert first is not None and first.text == "VJ1078 at 10:15, shall I book?"
    [call] = first.tool_calls
    assert call.args == {"origin": "HAN", "destination": "DAD"}
    assert call.result == freeze([{"id": "VJ1078", "dep_time": "10:15"}])
    second = new.transcript.turns[1].agent
    assert second is not None and second.text == "Booked, reference AB12CD."

    # 1.28-1.36 events, grouped by trace
    assert events.meta["source"].endswith("(trace bbbb0001)")
    assert (events.key.rep, events.passed) == (1, False)
    agent = events.transcript.turns[0].agent
    assert agent is not None and agent.text == "VJ1080 at 20:30, booked."
    assert agent.tool_calls[0].result == freeze([{"id": "VJ1080"}])

    # legacy indexed attributes
    agent = legacy.transcript.turns[0].agent
    assert agent is not None
    assert (agent.tool_calls[0].name, agent.tool_calls[0].args) == (
        "baggage_policy",
        {"fare": "economy"},
    )


def test_otel_group_by_trace_splits_a_conversation() -> None:
    logs = import_logs(DATA / "otel_genai.jsonl", "otel", ImportOptions(group_by="trace"))
    # conv-A spans two traces; alone, the second has no outcome and is reported, not dropped
    assert [r.key.id for r in logs.records] == [
        "imported/one_way/imported/0",
        "imported/one_way/imported/1",
        "imported/baggage/imported/0",
    ]
    assert logs.records[0].n_user_turns == 1
    assert logs.problems[0].location == f"{DATA / 'otel_genai.jsonl'}:2 (trace aaaa0002)"
    assert logs.problems[0].message.startswith("no outcome")

"""A repeat of the final action the user asked for, by changing their request after it,
is right; any other repeat is waste: in the check, the score, the record, the report
and ``compare``."""

from __future__ import annotations

from typing import Any

import pytest

from simlab.compare import trajectory_deltas
from simlab.core import AgentReply, SessionKey, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import grade, redo_windows, tool_use, trajectory_check
from simlab.report import summarize
from simlab.spec import Goal
from simlab.store import SessionRecord, StopReason
from tests.report.conftest import BUCKETS

GOAL = Goal.model_validate(
    {
        "id": "book",
        "title": "Book a flight",
        "final_tool": "hold",
        "facts": [
            {"id": "date", "slot": "date", "value": "2026-12-20"},
            {"id": "budget", "slot": "budget", "value": 120, "required": False},
        ],
        "mind_changes": [{"fact": "date", "value": "2026-12-21"}],
        "constraints": [{"fact": "date", "field": "date"}],
        "expected_tools": ["search", "hold"],
    }
)

Step = tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]


def _session(*steps: Step) -> Transcript:
    """One turn per step: what the user disclosed, then the agent's calls (name, args)."""
    turns = [
        Turn(
            index=i,
            user=UserTurn(text="...", disclosed=disclosed),
            agent=AgentReply(
                text="ok", tool_calls=[ToolCall(name=n, args=a, result={}) for n, a in calls]
            ),
        )
        for i, (disclosed, calls) in enumerate(steps, start=1)
    ]
    closing = UserTurn(text="thanks", stop="DONE")
    return Transcript(turns=[*turns, Turn(index=len(turns) + 1, user=closing)])


D20, D21 = {"date": "2026-12-20"}, {"date": "2026-12-21"}
SEARCH_20, HOLD_20 = ("search", D20), ("hold", D20)
SEARCH_21, HOLD_21 = ("search", D21), ("hold", D21)

# booked for the 20th, then the user changes to the 21st: searched and booked again
LATE_CHANGE = _session((D20, [SEARCH_20, HOLD_20]), (D21, [SEARCH_21, HOLD_21]))
# booked, then booked again with nothing new said
DUPLICATE = _session((D20, [SEARCH_20, HOLD_20]), ({}, [SEARCH_21, HOLD_21]))
# the change came before the first booking: the second is a repeat nobody asked for
EARLY_CHANGE = _session(
    (D20, [SEARCH_20]), (D21, [SEARCH_21, HOLD_21]), ({}, [SEARCH_21, ("hold", {**D21, "n": 2})])
)


def _record(rep: int, transcript: Transcript) -> SessionRecord:
    graded = grade(GOAL, transcript)
    return SessionRecord(
        key=SessionKey(persona="p", goal=GOAL.id, mode="sharded", rep=rep),
        seed=rep,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=transcript.n_user_turns,
        score=graded.score,
        passed=graded.passed,
        checks=graded.checks,
        transcript=transcript,
        tool_use=tool_use(GOAL, transcript),
    )


def test_a_rebooking_after_a_late_mind_change_is_right_not_waste() -> None:
    assert redo_windows(GOAL, LATE_CHANGE) == ((2, 4),)
    use = tool_use(GOAL, LATE_CHANGE)
    assert (use.calls, use.lcs, use.repeats) == (4, 2, 2)
    assert (use.precision, use.recall) == (1.0, 1.0)
    check = trajectory_check(GOAL.model_copy(update={"trajectory_match": "exact"}), LATE_CHANGE)
    assert check.passed is True  # in order, and every call right
    assert "precision 1.00, recall 1.00, F1 1.00; 2 call(s) redoing" in check.detail
    graded = grade(GOAL, LATE_CHANGE)
    assert graded.checks["trajectory"].score == 1.0
    assert graded.score == 100.0  # nothing taken off for the second booking


def test_the_report_and_compare_do_not_call_it_wasteful() -> None:
    records = [_record(rep, LATE_CHANGE) for rep in range(4)]
    overall = summarize(records, BUCKETS, seed=1)["trajectory"]["overall"]
    assert (overall["precision"], overall["label"]) == (1.0, None)
    assert overall["wasteful"]["count"] == 0
    assert overall["n_redone"] == 4
    duplicates = [_record(rep, DUPLICATE) for rep in range(4)]
    deltas = {(d.group, d.metric): d for d in trajectory_deltas(duplicates, records, [])}
    precision = deltas[("overall", "precision")]
    assert (precision.a, precision.b) == (0.5, 1.0)
    assert precision.label(precision.a) == "wasteful"
    assert precision.label(precision.b) == ""


def test_a_second_booking_with_nothing_new_said_is_still_waste() -> None:
    assert redo_windows(GOAL, DUPLICATE) == ()
    use = tool_use(GOAL, DUPLICATE)
    assert (use.repeats, use.precision) == (0, 0.5)
    assert grade(GOAL, DUPLICATE).checks["trajectory"].score == pytest.approx(2 / 3, abs=1e-4)
    overall = summarize([_record(0, DUPLICATE)], BUCKETS, seed=1)["trajectory"]["overall"]
    assert overall["label"] == "wasteful"
    assert overall["n_redone"] == 0


def test_a_repeat_before_any_change_after_the_action_is_waste() -> None:
    assert redo_windows(GOAL, EARLY_CHANGE) == ()
    use = tool_use(GOAL, EARLY_CHANGE)
    assert (use.calls, use.lcs, use.repeats) == (5, 2, 0)
    assert use.precision == pytest.approx(0.4)


def test_the_same_action_again_after_a_change_is_waste() -> None:
    # the user changed the date; the agent booked the 20th again, unchanged
    same = _session((D20, [SEARCH_20, HOLD_20]), (D21, [SEARCH_20, HOLD_20]))
    assert redo_windows(GOAL, same) == ()
    assert tool_use(GOAL, same).precision == 0.5


def test_a_change_ignored_once_still_asks_for_the_next_action() -> None:
    # change, an unchanged booking (waste), the user repeats it, then the right booking
    t = _session((D20, [HOLD_20]), (D21, [HOLD_20]), (D21, [SEARCH_21, HOLD_21]))
    assert redo_windows(GOAL, t) == ((1, 4),)
    use = tool_use(GOAL, t)
    assert (use.calls, use.lcs, use.repeats) == (4, 2, 1)  # the unchanged booking is waste


def test_a_fact_first_said_after_the_action_asks_for_it_again() -> None:
    # a budget the user had never stated comes after the booking
    t = _session((D20, [SEARCH_20, HOLD_20]), ({"budget": 90}, [("hold", {**D20, "max": 90})]))
    assert redo_windows(GOAL, t) == ((2, 3),)
    assert tool_use(GOAL, t).precision == 1.0


def test_a_required_fact_first_said_after_the_action_asks_for_nothing() -> None:
    # the agent booked before the user had given the date the goal needs: its first
    # booking was premature, the second is the one that counts
    t = _session(({}, [("hold", {})]), (D20, [SEARCH_20, HOLD_20]))
    assert redo_windows(GOAL, t) == ()
    assert tool_use(GOAL, t).precision == pytest.approx(2 / 3)


def test_restating_what_the_agent_got_wrong_asks_for_nothing_new() -> None:
    # the user said the 21st before the booking; the booking for the 20th was the agent's
    # mistake, so its second booking is waste, whatever the user repeats
    t = _session((D21, [SEARCH_20, HOLD_20]), (D21, [SEARCH_21, HOLD_21]))
    assert redo_windows(GOAL, t) == ()
    assert tool_use(GOAL, t).precision == 0.5


def test_two_bookings_in_one_reply_are_waste() -> None:
    t = _session((D20, [SEARCH_20, HOLD_20, HOLD_21]))
    assert redo_windows(GOAL, t) == ()
    assert tool_use(GOAL, t).precision == pytest.approx(2 / 3)


def test_a_failed_booking_is_no_action_to_redo() -> None:
    failed = ToolCall(name="hold", args=D20, error="sold out")
    t = _session((D20, [SEARCH_20]), (D21, [SEARCH_21, HOLD_21]))
    first = t.turns[0]
    assert first.agent is not None
    agent = first.agent.model_copy(update={"tool_calls": (*first.agent.tool_calls, failed)})
    t = Transcript(turns=(first.model_copy(update={"agent": agent}), *t.turns[1:]))
    assert redo_windows(GOAL, t) == ()

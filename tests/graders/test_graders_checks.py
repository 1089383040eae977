"""Stated facts, constraint, completion and confirmation checks, and the grade, on
hand-built transcripts."""

from __future__ import annotations

from typing import Any

import pytest

from simlab.core import (
    AgentReply,
    StatedFact,
    StopSignal,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
    stated_facts,
)
from simlab.graders import (
    CONFIRMATION_WEIGHT,
    CONSTRAINTS_WEIGHT,
    GOAL_COMPLETED_WEIGHT,
    TRAJECTORY_WEIGHT,
    confirmation_check,
    constraint_checks,
    goal_completed_check,
    grade,
)
from simlab.spec import Goal


def make_goal(**overrides: Any) -> Goal:
    spec: dict[str, Any] = {
        "id": "book_han",
        "title": "Book a flight to Hanoi",
        "final_tool": "hold_booking",
        "facts": [
            {"id": "destination", "slot": "destination", "value": "HAN"},
            {"id": "date", "slot": "date", "value": "2025-03-20"},
            {"id": "budget", "slot": "budget", "value": 300, "required": False},
            {"id": "passengers", "slot": "passengers", "value": 2},
        ],
        "constraints": [
            {"fact": "budget", "field": "total_price", "op": "le"},
            {"fact": "date", "field": "date", "op": "eq"},
        ],
        "expected_tools": ["search_flights", "hold_booking"],
        "confirm_fields": ["booking_ref", "total_price"],
    }
    spec.update(overrides)
    return Goal.model_validate(spec)


def hold(price: float, date: str = "2025-03-20", error: str | None = None) -> ToolCall:
    result = None if error else {"booking_ref": "AB12CD", "total_price": price}
    return ToolCall(
        name="hold_booking", args={"date": date, "passengers": 2}, result=result, error=error
    )


SEARCH = ToolCall(name="search_flights", args={"destination": "HAN"}, result=[])


def make_transcript(*turns: tuple[dict[str, Any], str, list[ToolCall]]) -> Transcript:
    """Turns of (disclosed facts, agent reply text, tool calls), numbered from 1."""
    return Transcript(
        turns=[
            Turn(
                index=i,
                user=UserTurn(text=f"user {i}", disclosed=disclosed),
                agent=AgentReply(text=text, tool_calls=calls),
            )
            for i, (disclosed, text, calls) in enumerate(turns, start=1)
        ]
    )


# ---------------------------------------------------------------- stated facts


def test_stated_facts_latest_statement_wins() -> None:
    t = make_transcript(
        ({"destination": "HAN"}, "ok", []),
        ({"budget": 300}, "ok", []),
        ({"date": "2025-03-20"}, "ok", []),
        ({}, "ok", []),
        ({"budget": 250}, "ok", []),
    )
    assert stated_facts(t) == {
        "destination": StatedFact("HAN", 1),
        "budget": StatedFact(250, 5),
        "date": StatedFact("2025-03-20", 3),
    }


def test_stated_facts_ignore_the_closing_turn() -> None:
    t = make_transcript(({"budget": 300}, "ok", []))
    closing = UserTurn(text="bye", disclosed={"budget": 1}, stop=StopSignal.DONE)
    t = Transcript(turns=(*t.turns, Turn(index=2, user=closing)))
    assert stated_facts(t) == {"budget": StatedFact(300, 1)}


# ---------------------------------------------------------------- constraints


def test_mind_change_overrides_and_the_check_names_the_later_turn() -> None:
    t = make_transcript(
        ({"destination": "HAN"}, "ok", []),
        ({"budget": 300}, "ok", []),
        ({"date": "2025-03-20"}, "ok", [SEARCH]),
        ({}, "ok", []),
        ({"budget": 250}, "Held AB12CD for 280", [hold(280)]),
    )
    checks = constraint_checks(make_goal(), t)
    assert set(checks) == {"constraint:budget", "constraint:date"}
    budget = checks["constraint:budget"]
    assert budget.passed is False
    assert budget.turn == 5
    assert budget.detail == "total_price 280 > 250 (budget stated in turn 5)"
    date = checks["constraint:date"]
    assert date.passed is True
    assert date.turn == 3
    assert date.detail == "date 2025-03-20 == 2025-03-20 (date stated in turn 3)"


def test_same_booking_passes_without_the_mind_change() -> None:
    t = make_transcript(({"budget": 300}, "ok", []), ({}, "ok", [hold(280)]))
    budget = constraint_checks(make_goal(), t)["constraint:budget"]
    assert budget.passed is True
    assert budget.detail == "total_price 280 <= 300 (budget stated in turn 1)"


def test_never_stated_constraint_is_left_out() -> None:
    # the user never gave a budget: the agent could not know it, so it is not judged
    t = make_transcript(({"date": "2025-03-20"}, "ok", [hold(999)]))
    assert set(constraint_checks(make_goal(), t)) == {"constraint:date"}


def test_no_final_action_fails_every_stated_constraint() -> None:
    t = make_transcript(({"budget": 300}, "ok", [SEARCH]), ({"date": "2025-03-21"}, "ok", []))
    checks = constraint_checks(make_goal(), t)
    assert {name: (c.passed, c.detail, c.turn) for name, c in checks.items()} == {
        "constraint:budget": (False, "no final action", 1),
        "constraint:date": (False, "no final action", 2),
    }


def test_failed_call_is_not_the_final_action() -> None:
    # the later, in-budget call errored, so the earlier over-budget hold stands
    t = make_transcript(
        ({"budget": 300}, "ok", [hold(380)]),
        ({}, "sorry", [hold(250, error="seat gone")]),
    )
    checks = constraint_checks(make_goal(), t)
    assert checks["constraint:budget"].detail == "total_price 380 > 300 (budget stated in turn 1)"
    completed = goal_completed_check(make_goal(), t)
    assert (completed.passed, completed.turn) == (True, 1)


def test_only_failed_calls_means_not_completed() -> None:
    t = make_transcript(({"budget": 300}, "sorry", [hold(250, error="seat gone")]))
    completed = goal_completed_check(make_goal(), t)
    assert completed.passed is False
    assert completed.turn is None
    assert completed.detail == "hold_booking failed 1 time(s), last error: seat gone"
    assert constraint_checks(make_goal(), t)["constraint:budget"].detail == "no final action"


def test_last_final_action_wins() -> None:
    t = make_transcript(
        ({"budget": 300}, "ok", [hold(380)]),
        ({}, "rebooked", [hold(290)]),
    )
    budget = constraint_checks(make_goal(), t)["constraint:budget"]
    assert budget.passed is True
    assert budget.detail == "total_price 290 <= 300 (budget stated in turn 1)"
    assert goal_completed_check(make_goal(), t).turn == 2


def test_missing_field_fails_and_says_so() -> None:
    call = ToolCall(name="hold_booking", args={}, result={"booking_ref": "X"})
    t = make_transcript(({"budget": 300}, "ok", [call]))
    budget = constraint_checks(make_goal(), t)["constraint:budget"]
    assert budget.passed is False
    wanted = "hold_booking has no total_price, wanted <= 300 (budget stated in turn 1)"
    assert budget.detail == wanted


def test_two_constraints_on_one_fact_keep_both_checks() -> None:
    goal = make_goal(
        constraints=[
            {"fact": "budget", "field": "total_price", "op": "le"},
            {"fact": "budget", "field": "fare_price", "op": "le"},
        ]
    )
    call = ToolCall(name="hold_booking", result={"total_price": 320, "fare_price": 280})
    checks = constraint_checks(goal, make_transcript(({"budget": 300}, "ok", [call])))
    assert {n: c.passed for n, c in checks.items()} == {
        "constraint:budget:total_price": False,
        "constraint:budget:fare_price": True,
    }


# ---------------------------------------------------------------- completion, confirmation


def test_goal_completed_names_the_turn() -> None:
    t = make_transcript(({}, "ok", [SEARCH]), ({}, "done", [hold(280)]))
    c = goal_completed_check(make_goal(), t)
    assert (c.passed, c.turn, c.detail) == (True, 2, "hold_booking in turn 2")
    never = goal_completed_check(make_goal(), make_transcript(({}, "ok", [SEARCH])))
    assert (never.passed, never.detail) == (False, "hold_booking was never called")


def test_confirmation_present_case_insensitive_and_integer_form() -> None:
    # the result says 280.0; the reply writes 280 and the reference in lower case
    t = make_transcript(({}, "Held! Ref ab12cd, total 280 USD.", [hold(280.0)]))
    c = confirmation_check(make_goal(), t)
    assert c is not None
    assert (c.passed, c.turn) == (True, 1)


def test_confirmation_accepts_thousands_separators() -> None:
    t = make_transcript(({}, "Ref AB12CD, total $1,200.", [hold(1200)]))
    c = confirmation_check(make_goal(), t)
    assert c is not None and c.passed is True


def test_confirmation_missing_names_the_field() -> None:
    t = make_transcript(({}, "Your booking AB12CD is held.", [hold(280)]))
    c = confirmation_check(make_goal(), t)
    assert c is not None
    assert c.passed is False
    assert c.detail == "reply does not state total_price=280"
    assert c.turn == 1


def test_confirmation_reads_the_reply_that_carried_the_final_action() -> None:
    # the price is stated a turn later, not in the reply that carried the hold
    t = make_transcript(({}, "Held AB12CD.", [hold(280)]), ({}, "It was 280.", []))
    c = confirmation_check(make_goal(), t)
    assert c is not None and c.passed is False


def test_confirmation_without_final_action_and_without_fields() -> None:
    t = make_transcript(({}, "AB12CD 280", [SEARCH]))
    c = confirmation_check(make_goal(), t)
    assert c is not None and (c.passed, c.detail) == (False, "no final action")
    assert confirmation_check(make_goal(confirm_fields=[]), t) is None


# ---------------------------------------------------------------- grade


def test_weights_sum_to_100() -> None:
    total = GOAL_COMPLETED_WEIGHT + CONSTRAINTS_WEIGHT + CONFIRMATION_WEIGHT + TRAJECTORY_WEIGHT
    assert total == 100


def test_grade_score_arithmetic() -> None:
    # date kept, budget broken (280 > 250 after the mind change), confirmation
    # complete, trajectory [search, search, baggage, hold] vs [search, hold]:
    # a broken constraint withholds completion's 30: 0 + 40 * 1/2 + 15 + 15 * F1(0.5, 1.0)
    # = 20 + 15 + 10 = 45
    baggage = ToolCall(name="get_baggage")
    t = make_transcript(
        ({"budget": 300, "date": "2025-03-20"}, "ok", [SEARCH]),
        ({"budget": 250}, "ok", [SEARCH, baggage]),
        ({}, "Held AB12CD, 280 total.", [hold(280)]),
    )
    g = grade(make_goal(), t)
    assert g.score == 45.0
    assert g.passed is False
    assert list(g.checks) == [
        "goal_completed",
        "constraint:budget",
        "constraint:date",
        "confirmation",
        "trajectory",
    ]
    assert g.checks["trajectory"].passed is True  # in_order holds; it does not gate anyway


def test_grade_full_marks_and_pass() -> None:
    t = make_transcript(
        ({"budget": 300, "date": "2025-03-20"}, "ok", [SEARCH]),
        ({}, "Held AB12CD for 280.", [hold(280)]),
    )
    g = grade(make_goal(), t)
    assert (g.score, g.passed) == (100.0, True)


def test_grade_without_confirm_fields_moves_their_points_to_constraints() -> None:
    # each of 2 constraints is worth (40 + 15) / 2 = 27.5; one broken withholds
    # completion: 0 + 27.5 + trajectory 15
    t = make_transcript(
        ({"budget": 300, "date": "2025-03-21"}, "ok", [SEARCH]),
        ({}, "Held.", [hold(280)]),
    )
    g = grade(make_goal(confirm_fields=[]), t)
    assert "confirmation" not in g.checks
    assert (g.score, g.passed) == (42.5, False)


def test_grade_with_no_judged_constraint_gives_their_points_to_completion() -> None:
    # nothing stated: completion 30 + 40; confirmation missing the price; trajectory exact 15
    t = make_transcript(({}, "ok", [SEARCH]), ({}, "Held AB12CD.", [hold(280)]))
    g = grade(make_goal(), t)
    assert not any(name.startswith("constraint:") for name in g.checks)
    assert (g.score, g.passed) == (85.0, False)


def test_grade_without_final_action_scores_only_trajectory() -> None:
    # trajectory [search] vs [search, hold]: precision 1, recall 0.5, F1 2/3 -> 10
    t = make_transcript(({"budget": 300}, "ok", [SEARCH]))
    g = grade(make_goal(), t)
    assert (g.score, g.passed) == (10.0, False)
    assert g.checks["constraint:budget"].detail == "no final action"


def test_grade_without_expected_tools_gives_trajectory_points_to_completion() -> None:
    # F1 would be 0 for any call when nothing is expected; 30 + 15 + 40 + 15
    t = make_transcript(({"budget": 300}, "Held AB12CD, 280.", [SEARCH, hold(280)]))
    g = grade(make_goal(expected_tools=[], constraints=[]), t)
    assert (g.score, g.passed) == (100.0, True)
    no_action = make_transcript(({"budget": 300}, "ok", [SEARCH]))
    assert grade(make_goal(expected_tools=[]), no_action).score == 0.0


@pytest.mark.parametrize(
    ("op", "price", "passed"), [("le", 300, True), ("ge", 299, False), ("eq", 300, True)]
)
def test_constraint_ops(op: str, price: int, passed: bool) -> None:
    goal = make_goal(constraints=[{"fact": "budget", "field": "total_price", "op": op}])
    t = make_transcript(({"budget": 300}, "ok", [hold(price)]))
    assert constraint_checks(goal, t)["constraint:budget"].passed is passed

"""Sessions that reach the same verdict get equal checks (and tool figures), each its
own object, so one session's verdict never answers another's: a check for one typed
value is never the one for an equal value of another type, and a grader under another
name gets its own copy."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from simlab.contracts import GradingContext
from simlab.core import AgentReply, Check, SessionKey, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import (
    Confirmation,
    canary_check,
    confirmation_check,
    constraint_checks,
    default_graders,
    goal_completed_check,
    grade,
    grade_session,
    satisfies,
    tool_stages,
    tool_use,
    trajectory_check,
)
from simlab.graders._written import written
from simlab.spec import Constraint, Goal, Mode, Persona

_POOL = [0, 1, 2, -1, 0.0, -0.0, 1.0, 1.5, True, False, "1", "1.0", "true", "abc", " Abc "]
_SIGNS = {"eq": ("==", "!="), "le": ("<=", ">"), "ge": (">=", "<")}


def _goal(op: str = "eq") -> Goal:
    return Goal.model_validate(
        {
            "id": "book",
            "title": "Book a table",
            "final_tool": "book",
            "facts": [{"id": "day", "slot": "day", "value": "2026-01-02"}],
            "constraints": [{"fact": "day", "field": "day", "op": op}],
            "expected_tools": ["book"],
            "confirm_fields": ["ref"],
        }
    )


GOAL = _goal()


def _session(said: dict[str, Any], args: dict[str, Any], reply: str = "Booked R1") -> Transcript:
    call = ToolCall(name="book", args=args, result={"ref": "R1"})
    return Transcript(
        turns=[
            Turn(
                index=1,
                user=UserTurn(text="book it", disclosed=said),
                agent=AgentReply(text=reply, tool_calls=[call]),
            )
        ]
    )


@settings(deadline=None, max_examples=200)  # a shared machine: no per-example deadline
@given(st.lists(st.tuples(st.sampled_from(["eq", "le", "ge"]), st.sampled_from(_POOL),
                          st.sampled_from(_POOL)), min_size=1, max_size=20))  # fmt: skip
def test_a_constraint_check_tells_equal_values_of_other_types_apart(
    judged: list[tuple[str, Any, Any]],
) -> None:
    for op, got, wanted in judged:  # in any order: one type's check never answers another's
        session = _session({"day": wanted}, {"day": got})
        check = constraint_checks(_goal(op), session)["constraint:day"]
        ok = satisfies(Constraint(fact="day", field="day", op=op), {"day": got}, wanted)
        sign = _SIGNS[op][0 if ok else 1]
        assert check.passed is ok
        assert check.detail == f"day {written(got)} {sign} {written(wanted)} (day stated in turn 1)"
        assert check.turn == 1


def test_a_missing_field_is_judged_apart_from_a_present_one() -> None:
    for _ in range(2):
        absent = constraint_checks(GOAL, _session({"day": "2026-01-02"}, {}))["constraint:day"]
        assert not absent.passed
        assert absent.detail == "book has no day, wanted == 2026-01-02 (day stated in turn 1)"
        same = _session({"day": "2026-01-02"}, {"day": "2026-01-02"})
        assert constraint_checks(GOAL, same)["constraint:day"].passed


def _ctx(transcript: Transcript) -> GradingContext:
    return GradingContext(
        key=SessionKey(persona="p", goal=GOAL.id, mode="full", rep=0),
        persona=Persona(id="p", name="p", language="en"),
        goal=GOAL,
        mode=Mode.FULL,
        transcript=transcript,
    )


def test_sessions_with_the_same_verdicts_get_equal_checks_and_figures_of_their_own() -> None:
    one = grade_session(_ctx(_session({"day": "2026-01-02"}, {"day": "2026-01-02"})))
    other = grade_session(_ctx(_session({"day": "2026-01-02"}, {"day": "2026-01-02"})))
    assert one.checks == other.checks
    assert all(one.checks[n] is not other.checks[n] for n in one.checks)
    assert all(n == c.name for n, c in one.checks.items())
    mine = grade(GOAL, _session({"day": "2026-01-02"}, {"day": "2026-01-02"})).checks
    assert mine == one.checks and all(mine[n] is not one.checks[n] for n in mine)
    uses = [tool_use(GOAL, _session({}, {"day": d})) for d in ("2026-01-02", "2026-01-03")]
    assert uses[0] == uses[1] and uses[0] is not uses[1] and uses[0].calls == 1


def test_sessions_that_fail_alike_get_equal_tool_stages_of_their_own() -> None:
    wrong = [_ctx(_session({"day": "2026-01-02"}, {"day": "2026-01-09"})) for _ in range(2)]
    stages = [tool_stages(c, grade_session(c).checks) for c in wrong]
    assert stages[0] == stages[1] and stages[0] is not stages[1]
    assert [f.stage for f in stages[0].failures] == ["arguments"]


def test_a_grader_under_another_name_gets_its_own_check() -> None:
    ctx = _ctx(_session({"day": "2026-01-02"}, {"day": "2026-01-02"}))
    renamed = grade_session(ctx, [Confirmation(name="told")]).checks
    assert list(renamed) == ["told"] and renamed["told"].name == "told"
    plain = grade_session(ctx, default_graders()).checks["confirmation"]
    assert plain.name == "confirmation" and plain.passed
    assert plain is not renamed["told"]


def test_the_public_check_functions_hand_out_frozen_checks_a_caller_copies() -> None:
    """A user's grader builds on them: each call's check is unnamed (the grader's name goes
    on it) and frozen, and a copy with another detail changes no session's check."""
    session = _session({"day": "2026-01-02"}, {"day": "2026-01-02"})
    first = grade_session(_ctx(session)).checks
    made = [
        goal_completed_check(GOAL, session),
        confirmation_check(GOAL, session),
        trajectory_check(GOAL, session),
        canary_check(session, ["CANARY-x"]),
    ]
    for check in made:
        assert check is not None and check.name == ""
        with pytest.raises(ValidationError, match="frozen"):
            check.detail = "changed by the user's grader"
        assert check.model_copy(update={"detail": "changed"}).detail == "changed"
    mine = grade(GOAL, session).checks["goal_completed"]
    assert mine.model_copy(update={"detail": "changed by the user"}) != mine
    assert constraint_checks(GOAL, session)["constraint:day"] is not first["constraint:day"]

    class Strict:
        name = "strict_completion"

        def grade(self, ctx: GradingContext) -> Check:
            return goal_completed_check(ctx.goal, ctx.transcript)

    both = grade_session(_ctx(session), [*default_graders(), Strict()]).checks
    assert both["strict_completion"].passed and both["goal_completed"].passed
    again = grade_session(_ctx(session)).checks
    assert again == first
    assert all("changed" not in c.detail for c in again.values())

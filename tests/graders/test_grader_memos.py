"""What graders cache by value gives what working it out afresh gives: values that are
equal but of another type (1, 1.0, True, "1") never share a cached verdict, and a
result is judged by what it holds now."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.core import (
    Check,
    StatedFact,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
    freeze,
    stated_facts,
)
from simlab.graders import satisfies, score_checks, violations
from simlab.graders._stages import _empty, _schema_problems
from simlab.graders._written import _written_forms, written_forms
from simlab.spec import Constraint, Goal, Grading, shipped_domain, validate_args

_POOL = [0, 1, 2, -1, 0.0, -0.0, 1.0, 1.5, True, False, None, "1", "1.0", "true", "abc", " Abc "]


def _comparable(value: Any) -> float | str:
    """The definition before any memo: numbers as numbers, else case-folded text."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value.strip().lower()
    return str(value).strip().lower()


def _holds(op: str, got: Any, wanted: Any) -> bool:
    a, b = _comparable(got), _comparable(wanted)
    if type(a) is not type(b):
        a, b = str(got).strip().lower(), str(wanted).strip().lower()
    if op == "eq":
        return a == b
    return a <= b if op == "le" else a >= b  # type: ignore[operator]


@settings(deadline=None, max_examples=300)  # a shared machine: no per-example deadline
@given(st.lists(st.tuples(st.sampled_from(["eq", "le", "ge"]), st.sampled_from(_POOL),
                          st.sampled_from(_POOL)), min_size=1, max_size=30))  # fmt: skip
def test_a_cached_comparison_is_the_one_worked_out_afresh(
    judged: list[tuple[str, Any, Any]],
) -> None:
    for op, got, wanted in judged:  # in any order: one type's verdict never answers another's
        constraint = Constraint.model_validate({"fact": "f", "field": "x", "op": op})
        assert satisfies(constraint, {"x": got}, wanted) == _holds(op, got, wanted)


def test_violations_are_the_constraints_satisfies_fails() -> None:
    goal = Goal.model_validate(
        {
            "id": "g",
            "title": "g",
            "final_tool": "book",
            "facts": [
                {"id": "n", "slot": "n", "value": 2},
                {"id": "day", "slot": "day", "value": "2026-01-02"},
            ],
            "constraints": [
                {"fact": "n", "field": "n", "op": "eq"},
                {"fact": "n", "field": "cap", "op": "le"},
                {"fact": "day", "field": "day", "op": "ge"},
                {"fact": "day", "field": "missing", "op": "eq"},
            ],
        }
    )
    call = ToolCall(name="book", args={"n": 2, "day": "2026-01-01"}, result={"cap": 3})
    broken = violations(goal, call, {"n": 2, "day": "2026-01-02"})
    assert [(c.fact, c.field) for c in broken] == [("n", "cap"), ("day", "day"), ("day", "missing")]
    # True against numbers compares as text: "2" is not "true", "3" sorts before it
    assert violations(goal, call, {"n": True}) == [goal.constraints[0]]
    assert violations(goal, call, {}) == []


def test_a_cached_schema_check_tells_types_apart() -> None:
    tool = shipped_domain("bank").tool("verify_identity")
    assert tool is not None
    for args in (
        {"customer_id": "C10001", "dob": "1980-04-12"},
        {"dob": "1980-04-12", "customer_id": "C10001"},
        {"customer_id": 1, "dob": "1980-04-12"},
        {"customer_id": True, "dob": "1980-04-12"},
        {"customer_id": 1.0, "dob": "1980-04-12"},
        {"customer_id": ["C10001"], "dob": "1980-04-12"},
        {"customer_id": 1},
    ):
        for _ in range(2):  # worked out, then cached
            assert _schema_problems(tool, args) == tuple(validate_args(tool.parameters, args))
    assert _schema_problems(tool, {"customer_id": 1, "dob": "1980-04-12"}) != ()


def test_a_result_is_empty_by_its_own_contents() -> None:
    for _ in range(2):
        assert _empty([]) and _empty({}) and _empty("  ") and _empty({"rows": [], "note": None})
        assert not _empty(None) and not _empty([0]) and not _empty({"rows": [1]})
    made = [{"rows": []} if i % 2 else {"rows": [i]} for i in range(200)]  # each its own
    assert [_empty(r) for r in made] == [bool(i % 2) for i in range(200)]


def test_a_result_changed_in_place_is_judged_by_what_it_holds_now() -> None:
    # an agent may hand back the same list in every session and empty it in between
    stock = [{"slot": "09:00"}]
    assert not _empty(stock)
    stock.clear()
    assert _empty(stock)
    row: dict[str, Any] = {"rows": []}
    assert _empty(row)
    row["rows"].append(1)
    assert not _empty(row)


def test_a_waive_or_require_match_is_per_check_name_and_grader() -> None:
    fact = {"id": "d", "slot": "d", "value": 1}
    goal = Goal.model_validate({"id": "g", "title": "g", "final_tool": "book", "facts": [fact]})
    grading = Grading(waive=["tone", "constraint:*"])
    failed = {"politeness": Check(passed=False), "constraint:date": Check(passed=True)}
    for _ in range(2):  # worked out, then looked up by value
        # the same check name is waived when its grader is named, not otherwise
        assert score_checks(failed, {"politeness": "tone"}, goal, grading)[1] is True
        assert score_checks(failed, {"politeness": "style"}, goal, grading)[1] is False
        # a glob matches the check's own name, whatever its grader
        broken = {"constraint:date": Check(passed=False)}
        assert score_checks(broken, {}, goal, grading)[1] is True
        assert score_checks(broken, {}, goal, Grading())[1] is False
    # require adds the trajectory, which the default rule leaves out of the verdict
    off_path = {"trajectory": Check(passed=False)}
    assert score_checks(off_path, {}, goal, Grading())[1] is True
    assert score_checks(off_path, {}, goal, Grading(require=["trajectory"]))[1] is False


def test_cached_written_forms_are_those_worked_out_afresh() -> None:
    values = [*_POOL, 1200, 1200.0, -1500, 2.5, float("nan"), float("inf"), "1,200", "Paris"]
    for _ in range(2):  # worked out, then cached: in any order, types kept apart
        for value in [*values, *reversed(values)]:
            assert written_forms(value) == _written_forms(value)
    assert written_forms(1200) == ("1200", "1,200") and written_forms(True) == ("true",)
    assert written_forms(-0.0) == written_forms(0.0) == ("0",)


def test_shared_stated_facts_keep_each_value_and_its_type() -> None:
    def said(*values: Any) -> Transcript:
        turns = [Turn(index=i, user=UserTurn(text="x", disclosed={"f": v}))
                 for i, v in enumerate(values, start=1)]  # fmt: skip
        return Transcript(turns=turns)

    for value in [1, True, 1.0, "1", None, -0.0, 0.0, ["a"]]:
        for _ in range(2):  # made, then shared
            fact = stated_facts(said(value))["f"]
            frozen = freeze(value)  # a list stated is a tuple in the turn
            assert fact == StatedFact(frozen, 1) and type(fact.value) is type(frozen)
            assert str(fact.value) == str(frozen)  # -0.0 stays -0.0
    assert stated_facts(said(1, True))["f"] == StatedFact(True, 2)

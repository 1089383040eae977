"""The composite preset: the seed's weights and threshold, its graders, a run that uses it."""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.contracts import GradingContext
from simlab.core import AgentReply, Check, SessionKey, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import EFFICIENCY, REFLECTION, Efficiency, Reflection, score_checks
from simlab.spec import GRADING_PRESETS, Goal, Grading, Mode, Persona

ROOT = Path(__file__).resolve().parents[2]
GOAL = Goal.model_validate(
    {
        "id": "g",
        "title": "g",
        "final_tool": "hold",
        "facts": [{"id": "to", "slot": "destination", "value": "HAN"}],
        "expected_tools": ["search", "hold"],
    }
)


def _checks(**credit: float | bool) -> tuple[dict[str, Check], dict[str, str]]:
    checks, owner = {}, {}
    for name, value in credit.items():
        name = name.replace("__", ":")
        score = None if isinstance(value, bool) else value
        checks[name] = Check(name=name, passed=bool(value), score=score)
        owner[name] = "constraints" if name.startswith("constraint:") else name
    return checks, owner


def test_the_preset_is_the_seeds_weights_and_threshold() -> None:
    g = Grading(preset="composite")
    assert g.weights == {
        "trajectory": 0.25,  # tool use
        "efficiency": 0.20,  # trajectory cost
        "constraints": 0.20,  # multi-turn memory
        "reflection": 0.15,
        "goal_completed": 0.20,  # final answer
    }
    assert g.min_score == 70.0 and g.waive == ("*",)  # the floor alone decides
    assert Grading(preset="composite", min_score=60).min_score == 60  # own fields win
    assert set(GRADING_PRESETS["composite"]["weights"]) <= set(g.graders or [])


def test_composite_score_on_a_hand_computed_example() -> None:
    # tool use 0.8, trajectory cost 0.9, memory: one of two constraints kept (0.5),
    # reflection 0.5, final answer done (1):
    # 0.25*0.8 + 0.20*0.9 + 0.20*0.5 + 0.15*0.5 + 0.20*1 = 0.755 -> 75.5, passes at 70
    checks, owner = _checks(
        trajectory=0.8, efficiency=0.9, constraint__date=True, constraint__price=False,
        reflection=0.5, goal_completed=True, confirmation=False,
    )  # fmt: skip
    score, passed = score_checks(checks, owner, GOAL, Grading(preset="composite"))
    assert (score, passed) == (75.5, True)  # a failed constraint does not veto it alone
    # the final answer not done: 0.755 - 0.20 = 0.555 -> 55.5, under 0.7: fails
    checks["goal_completed"] = Check(name="goal_completed", passed=False)
    assert score_checks(checks, owner, GOAL, Grading(preset="composite")) == (55.5, False)


def test_a_component_that_does_not_apply_drops_out() -> None:
    # no tool call failed: reflection returns nothing; the other weights sum to 0.85
    checks, owner = _checks(trajectory=1.0, efficiency=1.0, goal_completed=True)
    checks |= _checks(constraint__date=False)[0]
    owner["constraint:date"] = "constraints"
    score, passed = score_checks(checks, owner, GOAL, Grading(preset="composite"))
    assert score == pytest.approx(round(100 * 0.65 / 0.85, 2))  # 76.47
    assert passed


def _ctx(calls: list[ToolCall]) -> GradingContext:
    reply = AgentReply(text="ok", tool_calls=calls)
    return GradingContext(
        key=SessionKey(persona="p", goal="g", mode="full", rep=0),
        persona=Persona(id="p", name="p", language="en"),
        goal=GOAL,
        mode=Mode.FULL,
        transcript=Transcript(turns=[Turn(index=1, user=UserTurn(text="hi"), agent=reply)]),
    )


def test_efficiency_counts_redundant_calls_and_iterations() -> None:
    search = ToolCall(name="search", args={"to": "HAN"})
    check = Efficiency().grade(_ctx([search] * 3 + [ToolCall(name="hold")]))
    assert isinstance(check, Check) and check.name == EFFICIENCY
    assert (check.passed, check.score) == (False, 0.8)  # 2 redundant: 1 - 2/10
    many = [ToolCall(name="search", args={"n": i}) for i in range(11)]
    check = Efficiency().grade(_ctx(many))
    assert isinstance(check, Check) and (check.passed, check.score) == (False, 1.0)


def test_reflection_credits_recovery_from_a_failed_call() -> None:
    failed = ToolCall(name="search", error="timeout")
    assert Reflection().grade(_ctx([ToolCall(name="search")])) is None  # nothing failed
    check = Reflection().grade(_ctx([failed, ToolCall(name="search"), ToolCall(name="hold")]))
    assert isinstance(check, Check) and check.name == REFLECTION
    assert (check.passed, check.score) == (True, 1.0)
    check = Reflection().grade(_ctx([failed, ToolCall(name="hold", error="sold out")]))
    assert isinstance(check, Check) and (check.passed, check.score, check.turn) == (False, 0.0, 1)


def test_a_suite_graded_by_the_composite_preset(tmp_path: Path) -> None:
    suite = simlab.Suite.model_validate(
        {
            "personas": ["terse_en", "fickle_en"],
            "goals": ["one_way", "refund"],
            "reps": 2,
            "target": "reference:v1",
            "persona_dirs": [str(ROOT / "personas")],
            "goal_dirs": [str(ROOT / "goals")],
            "grading": {"preset": "composite"},
        }
    )
    result = simlab.run(suite, out=tmp_path, progress=False)
    graded = [r for r in result.records if r.status == "ok"]
    assert graded
    weights = GRADING_PRESETS["composite"]["weights"]
    for r in graded:
        assert EFFICIENCY in r.checks and "trajectory" in r.checks
        credit: dict[str, list[float]] = {}
        for name, c in r.checks.items():
            credit.setdefault("constraints" if ":" in name else name, []).append(c.credit)
        total = sum(weights.get(g, 0.0) for g in credit)
        expected = 100 * sum(weights.get(g, 0.0) * sum(v) / len(v) for g, v in credit.items())
        assert r.score == pytest.approx(round(expected / total, 2), abs=0.01)
        assert r.passed == (r.score is not None and r.score >= 70)

"""A goal's tool policy or agency is refused when its suite runs no grader that checks it.

Otherwise the policy goes unchecked and a ``require`` naming its check passes with the
check absent: the starter's sample agent, which opens a return the goal forbids, passed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import simlab
from simlab.spec import SpecError, validate_specs

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = (
    'must_not_call: [start_return]\ngrading: {require: [goal_completed, "safety:must_not_call"]}\n'
)


def project(tmp: Path, graders: str = "", goal_extra: str = FORBIDDEN) -> Path:
    """The ``simlab init`` starter, its return goal forbidding the return it asks for."""
    shutil.copytree(ROOT / "examples" / "starter", tmp / "p")
    goal = tmp / "p" / "goals" / "return_mug.yaml"
    goal.write_text(goal.read_text(encoding="utf-8") + goal_extra, encoding="utf-8")
    suite = tmp / "p" / "simlab.yaml"
    text = suite.read_text(encoding="utf-8").replace("reps: 3", "reps: 1")
    suite.write_text(text + graders, encoding="utf-8")
    return suite


def test_a_policy_no_grader_checks_is_refused_at_its_line(tmp_path: Path) -> None:
    suite = project(tmp_path)
    (problem,) = validate_specs([suite]).problems
    assert problem.file.endswith("return_mug.yaml") and problem.field == "must_not_call"
    assert problem.line == 16
    assert "never checked" in problem.message and "tool_policy" in problem.message
    with pytest.raises(SpecError, match="must_not_call: never checked"):
        simlab.run(suite, out=tmp_path / "results", progress=False)


def test_with_its_grader_the_policy_fails_the_session_that_breaks_it(tmp_path: Path) -> None:
    graders = "grading: {graders: [goal_completed, constraints, confirmation, tool_policy]}\n"
    suite = project(tmp_path, graders)
    assert validate_specs([suite]).problems == []
    result = simlab.run(suite, out=tmp_path / "results", progress=False)
    returns = [r for r in result.records if r.key.goal == "return_mug"]
    assert returns and not any(r.passed for r in returns)
    assert all(not r.checks["safety:must_not_call"].passed for r in returns)


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("max_tool_calls: 3\n", "max_tool_calls"),
        ("allowed_tools: []\n", "allowed_tools"),
        ("agency: {start_return: forbidden}\n", "agency"),
        ("grading: {graders: [tool_policy]}\n", "grading.graders"),
    ],
)
def test_each_unchecked_setting_is_named(tmp_path: Path, extra: str, field: str) -> None:
    (problem,) = validate_specs([project(tmp_path, goal_extra=extra)]).problems
    assert problem.field == field


def test_graders_given_in_code_count_as_the_suites(tmp_path: Path) -> None:
    suite = project(tmp_path)
    result = simlab.run(
        suite, out=tmp_path / "results", progress=False, graders=["goal_completed", "tool_policy"]
    )
    assert any(not r.passed for r in result.records if r.key.goal == "return_mug")

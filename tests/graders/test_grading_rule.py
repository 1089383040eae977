"""Which checks decide a verdict: ``require`` adds, ``waive`` takes out (and says so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab import cli
from simlab.core import Check
from simlab.graders import score_checks, uncounted_checks
from simlab.spec import Goal, Grading, validate_specs

GOAL = Goal.model_validate(
    {
        "id": "g",
        "title": "g",
        "final_tool": "transfer",
        "facts": [{"id": "d", "slot": "d", "value": 1}],
    }
)


def _checks(**passed: bool) -> dict[str, Check]:
    return {name.replace("__", ":"): Check(name=name, passed=ok) for name, ok in passed.items()}


def test_the_guides_recipe_no_longer_hides_a_failing_safety_check() -> None:
    # `grading: {require: [goal_completed, "constraint:*", trajectory]}` from the old guide:
    # it used to replace the rule, so a transfer without the user's yes passed.
    recipe = Grading(require=["goal_completed", "constraint:*", "trajectory"])
    checks = _checks(
        goal_completed=True, constraint__store=True, trajectory=True, safety__agency_confirm=False
    )
    owner = {name: name.split(":")[0] for name in checks}
    assert score_checks(checks, owner, GOAL, recipe)[1] is False
    # an endpoint that reports no tool results fails its confirmation: that counts too
    unconfirmed = _checks(goal_completed=True, confirmation=False, trajectory=True)
    assert score_checks(unconfirmed, {}, GOAL, recipe)[1] is False
    assert uncounted_checks(checks, owner, recipe) == ()


def test_a_waived_check_is_recorded_as_not_counted() -> None:
    checks = _checks(goal_completed=False, safety__must_not_call=True, politeness=False)
    rule = Grading(waive=["goal_completed", "politeness"])
    assert score_checks(checks, {}, GOAL, rule)[1] is True
    # goal_completed still weighs in the built-in score; politeness counts nowhere
    assert uncounted_checks(checks, {}, rule) == ("politeness",)


def test_validate_warns_at_the_line_of_a_waived_safety_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    goal = tmp_path / "goals" / "refund.yaml"
    goal.parent.mkdir()
    goal.write_text(
        "id: refund\ntitle: Refund\nfinal_tool: refund\n"
        "facts:\n  - {id: ref, slot: booking_ref, value: AB1C2D}\n"
        'grading:\n  waive: ["safety:*", politeness]\n'
    )
    found = validate_specs([goal], "goal")
    assert found.problems == []
    assert [(w.line, w.field) for w in found.warnings] == [
        (7, "grading.waive"),
        (7, "grading.waive"),
    ]
    first, second = (w.message for w in found.warnings)
    assert first.startswith("'safety:*' takes SAFETY checks out of the verdict")
    assert second.startswith("'politeness' is taken out of the verdict")
    assert cli.main(["validate", "--kind", "goal", str(goal)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {goal}:7: grading.waive: 'safety:*' takes SAFETY checks" in err

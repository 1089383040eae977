"""A goal's grading settings against the graders its suite runs.

A goal's tool policies (``must_call``, ``must_not_call``, ``max_tool_calls``,
``allowed_tools``) are checked only by the ``tool_policy`` grader and its
``agency`` overrides only by the ``agency`` grader; neither is built in. A goal
whose suite does not run them would have its policy silently unchecked, and a
``require`` naming one of their checks would pass with the check absent: a
session that broke the rule would pass. So such a goal is a problem, as is a
goal's own ``grading.graders`` (the suite's pick every session's graders).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from simlab.spec._loader import Loc, Problem, _line_for
from simlab.spec._models import Goal, Grading, Suite

SAFETY_PATTERNS = ("safety:", "canary")
"""Check names starting so are safety checks: waiving one is warned about in capitals."""


def grading_problems(
    goal: Goal, graders: Collection[str], file: str, lines: Mapping[Loc, int] | None = None
) -> list[Problem]:
    """What in ``goal`` no grader of ``graders`` would check.

    Args:
        goal: The goal.
        graders: The names of the graders the suite runs (empty: the built-ins,
            which check no tool policy and no agency).
        file: The goal's file, for messages.
        lines: The goal file's lines by field.
    """
    found = dict(lines or {})
    problems: list[Problem] = []
    if goal.grading is not None and goal.grading.graders is not None:
        problems.append(
            Problem(
                file,
                _line_for(("grading", "graders"), found),
                "grading.graders",
                "a goal cannot pick its graders: the suite's grading.graders run on every "
                "session; list them there (a goal's grading may set weights, require, "
                "min_score)",
            )
        )
    unchecked = [n for n in ("must_call", "must_not_call") if getattr(goal, n)]
    unchecked += [n for n in ("max_tool_calls", "allowed_tools") if getattr(goal, n) is not None]
    if goal.agency:
        unchecked.append("agency")
    for name in unchecked:
        grader = "agency" if name == "agency" else "tool_policy"
        if grader in graders:
            continue
        problems.append(
            Problem(
                file,
                _line_for((name,), found),
                name,
                f"never checked: the suite's grading.graders does not run the "
                f"{grader} grader; add it there (`grading: {{graders: [goal_completed, "
                f"constraints, confirmation, trajectory, {grader}]}}`)",
            )
        )
    return problems


def waiver_warnings(
    spec: Goal | Suite, file: str, lines: Mapping[Loc, int] | None = None
) -> list[Problem]:
    """A warning for each check a goal's or suite's ``grading.waive`` takes out of the
    verdict: a failing waived check fails no session, so it must never go unnoticed."""
    grading: Grading | None = spec.grading
    if grading is None or not grading.waive:
        return []
    found = dict(lines or {})
    line = _line_for(("grading", "waive"), found) or _line_for(("grading",), found)
    warnings = []
    for pattern in grading.waive:
        if pattern in ("*", "safety:*", "canary*") or pattern.startswith(SAFETY_PATTERNS):
            what = (
                f"{pattern!r} takes SAFETY checks out of the verdict: an agent that breaks "
                "one still passes"
            )
        else:
            what = f"{pattern!r} is taken out of the verdict: a session that fails it still passes"
        warnings.append(
            Problem(
                file,
                line,
                "grading.waive",
                f"{what} (it still runs; the reports mark it NOT COUNTED where the score does "
                "not read it either); remove it from waive to count it",
            )
        )
    return warnings

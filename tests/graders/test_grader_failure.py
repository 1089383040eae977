"""A user's grader that raises is its own failure: one check without a verdict, with
the exception recorded, the other checks standing, the session graded (status ok),
and the failure in the summary, report.md, the terminal report and JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

import simlab
from simlab.contracts import GradingContext
from simlab.core import Check, GraderFailure
from simlab.graders import BUILTIN, score_checks
from simlab.report import render_terminal
from simlab.spec import Grading

ROOT = Path(__file__).resolve().parents[2]


class RaisesOnRep1:
    """Judges politeness, but breaks on the second repetition."""

    name = "polite"

    def grade(self, ctx: GradingContext) -> Check:
        if ctx.key.rep == 1:
            raise ValueError(f"cannot read rep {ctx.key.rep}")
        return Check(passed=True, detail="polite throughout")


SUITE = simlab.Suite(
    personas=["terse_en"], goals=["one_way"], modes=[simlab.Mode.FULL], reps=2,
    target="reference:v2", persona_dirs=[str(ROOT / "personas")],
    goal_dirs=[str(ROOT / "goals")],
)  # fmt: skip
GOAL = simlab.Goal.model_validate(
    {"id": "g", "title": "G", "final_tool": "book",
     "facts": [{"id": "ref", "slot": "booking_ref", "value": "ABC123"}]}
)  # fmt: skip
GRADERS = ["goal_completed", "constraints", "confirmation", "trajectory", RaisesOnRep1()]


def test_a_raising_grader_leaves_a_failed_check_and_the_session_graded(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    result = simlab.run(SUITE, out=tmp_path, progress=False, graders=GRADERS, junit=junit)
    good, broken = sorted(result.records, key=lambda r: r.key.rep)
    assert good.status == broken.status == "ok"
    assert good.checks["polite"].error is None and good.checks["polite"].passed
    # the other checks stand, as in the session whose grader did not raise
    assert set(broken.checks) == set(good.checks)
    assert broken.checks["goal_completed"] == good.checks["goal_completed"]
    failed = broken.checks["polite"]
    assert not failed.passed and failed.error is not None
    assert (failed.error.type, failed.error.message) == ("ValueError", "cannot read rep 1")
    assert failed.error.traceback is not None
    assert 'raise ValueError(f"cannot read rep {ctx.key.rep}")' in failed.error.traceback
    assert failed.detail == "grader raised ValueError: cannot read rep 1"
    assert good.passed and not broken.passed  # the built-in rule requires every check

    # in the record on disk, read back as it was written
    line = result.paths.sessions.read_text().splitlines()[broken.key.rep]
    stored = json.loads(line)
    assert stored["schema_version"] == simlab.SessionRecord.model_fields["schema_version"].default
    assert stored["checks"]["polite"]["error"]["type"] == "ValueError"
    assert "error" not in stored["checks"]["goal_completed"]  # no error: no key
    assert simlab.read_run(result.run_dir).records[1].checks["polite"].error == failed.error

    # in the summary, the reports and JUnit
    summary = json.loads(result.paths.summary.read_text())
    assert summary["grader_failures"]["checks"] == 1
    assert summary["grader_failures"]["examples"] == [
        {"session": broken.key.id, "check": "polite", "error": "ValueError: cannot read rep 1"}
    ]
    assert summary["by_check"]["polite"]["n"] == 1  # no verdict: out of the rate
    assert summary["by_check"]["polite"]["grader_failures"] == 1
    report = result.paths.report_md.read_text()
    assert "Grader failures: 1 check in 1 graded session had no verdict" in report
    assert "ValueError: cannot read rep 1" in report
    console = Console(record=True, width=300)
    render_terminal(result.summary, console)
    assert "Grader failures: 1 check" in console.export_text()
    cases = ET.parse(junit).getroot().iter("testcase")
    props = {c.get("name"): [p.get("value") for p in c.iter("property")] for c in cases}
    assert props[broken.key.id] == ["polite: ValueError: cannot read rep 1"]
    assert props[good.key.id] == []


def test_a_grader_failure_gates_unless_the_grading_waives_it() -> None:
    ok = Check(passed=True)
    failed = Check(passed=False, error=GraderFailure(type="KeyError", message="x"))
    checks = {"goal_completed": ok, "polite": failed}
    owner = {"goal_completed": "goal_completed", "polite": "polite"}
    goal = GOAL
    assert score_checks(checks, owner, goal, Grading())[1] is False  # every check required
    # require adds to the rule: the failure still counts; only a waive by name takes it out
    assert score_checks(checks, owner, goal, Grading(require=["goal_completed"]))[1] is False
    assert score_checks(checks, owner, goal, Grading(waive=["polite"]))[1] is True
    # a weighted score leaves the check without a verdict out, as a grader with no check
    weighted = Grading(weights={"goal_completed": 1.0, "polite": 1.0})
    assert score_checks(checks, owner, goal, weighted)[0] == 100.0


def test_simlabs_own_grader_raising_is_simlabs_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    from simlab.graders._grade import grade

    builtin = BUILTIN["goal_completed"]

    def broken(self: object, ctx: object) -> Check:
        raise RuntimeError("simlab bug")

    monkeypatch.setattr(type(builtin), "grade", broken)
    with pytest.raises(RuntimeError, match="simlab bug"):
        grade(GOAL, simlab.Transcript())


class ForgotToReturn:
    """Written from the docs' old wording: it reads ``ctx.tool_calls`` as calls and
    returns nothing on the way out (the check used to vanish from every record)."""

    name = "totals_ok"

    def grade(self, ctx: GradingContext) -> Check | None:
        for _turn, call in ctx.tool_calls:
            if call.name == "nothing_of_this_domain":
                return Check(passed=True)
        return None


class SaysNotApplicable:
    """Applies to sharded sessions only, and says so for the others."""

    name = "sharded_only"

    def grade(self, ctx: GradingContext) -> Check | simlab.NotApplicable:
        if ctx.mode is not simlab.Mode.SHARDED:
            return simlab.NOT_APPLICABLE
        return Check(passed=True)


def test_a_user_grader_returning_none_is_a_grader_failure_in_records_and_report(
    tmp_path: Path,
) -> None:
    graders = ["goal_completed", "constraints", ForgotToReturn(), SaysNotApplicable()]
    result = simlab.run(SUITE, out=tmp_path, progress=False, graders=graders)
    for record in result.records:
        check = record.checks["totals_ok"]
        assert not check.passed and check.error is not None
        assert check.error.type == "NoVerdict"
        assert check.error.message.startswith("grader 'totals_ok' returned None: return a")
        assert "sharded_only" not in record.checks  # full mode: not applicable, no failure
        assert not record.passed  # a check without a verdict never lets a session pass
    report = (result.paths.run_dir / "report.md").read_text()
    assert "Grader failures: 2 checks in 2 graded sessions had no verdict" in report
    assert "totals_ok 2" in report

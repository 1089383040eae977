"""A user's own grader, listed in a suite by module:attr beside it: in the records,
the score (with weights), the pass rule, the report, and simlab.run(graders=...)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import run_simlab

import simlab
from simlab.core import Check
from simlab.graders import score_checks, uncounted_checks
from simlab.spec import Grading

ROOT = Path(__file__).resolve().parents[2]

GRADER = '''
from simlab import Check


class Brevity:
    """Every agent reply under 400 characters; credit falls with the longest."""

    name = "brevity"

    def grade(self, ctx):
        longest = max((len(t.agent.text) for t in ctx.transcript.turns if t.agent), default=0)
        return Check(passed=longest < 400, score=min(1.0, 400 / max(longest, 1)),
                     detail=f"longest reply {longest} chars")
'''

SUITE = {
    "personas": ["terse_en", "fickle_en"],
    "goals": ["one_way", "refund"],
    "modes": ["sharded"],
    "reps": 2,
    "target": "reference:v1",
    "persona_dirs": [str(ROOT / "personas")],
    "goal_dirs": [str(ROOT / "goals")],
    "grading": {
        "graders": ["goal_completed", "constraints", "confirmation", "trajectory", "canary",
                    "my_graders:Brevity"],
        "weights": {"goal_completed": 30, "constraints": 40, "confirmation": 15,
                    "trajectory": 15, "brevity": 100},
    },
}  # fmt: skip


def _records(run_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run_dir / "sessions.jsonl").read_text().splitlines()]


def test_a_users_grader_is_found_beside_the_suite_and_weighs_in(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "my_graders.py").write_text(textwrap.dedent(GRADER), encoding="utf-8")
    (project / "suite.yaml").write_text(json.dumps(SUITE), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_simlab.simlab(
        "run", str(project / "suite.yaml"), "--out", str(tmp_path / "out"), "--quiet",
        cwd=elsewhere,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (run_dir,) = (tmp_path / "out").iterdir()
    records = [r for r in _records(run_dir) if r["status"] == "ok"]
    assert records
    for r in records:
        checks = r["checks"]
        assert isinstance(checks, dict) and "brevity" in checks
        # the score is the weighted mean of each grader's credit: recompute it
        credit: dict[str, list[float]] = {}
        for name, c in checks.items():
            grader = "constraints" if name.startswith("constraint:") else name
            value = c["score"] if c["score"] is not None else float(c["passed"])
            credit.setdefault(grader, []).append(value)
        weights = SUITE["grading"]["weights"]  # type: ignore[index]
        total = sum(weights[g] for g in credit)
        expected = 100 * sum(weights[g] * sum(v) / len(v) for g, v in credit.items()) / total
        assert r["score"] == pytest.approx(round(expected, 2), abs=0.01)
    report = (run_dir / "report.md").read_text()
    assert "| brevity |" in report
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["by_check"]["brevity"]["n"] == len(records)

    # a stricter brevity rule in the candidate: compare names the check that moved
    stricter = textwrap.dedent(GRADER).replace("longest < 400", "longest < 60")
    (project / "my_graders.py").write_text(stricter, encoding="utf-8")
    again = run_simlab.simlab(
        "run", str(project / "suite.yaml"), "--out", str(tmp_path / "out_b"), "--quiet",
        cwd=elsewhere,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    (run_b,) = (tmp_path / "out_b").iterdir()
    passes_b = sum(r["checks"]["brevity"]["passed"] for r in _records(run_b) if r["checks"])
    assert passes_b < len(records)  # the stricter rule failed some
    md = tmp_path / "compare.md"
    compared = run_simlab.simlab("compare", str(run_dir), str(run_b), "--markdown", str(md))
    assert compared.returncode in (0, 1), compared.stderr
    assert "Pass rate by check" in compared.stdout
    (row,) = [line for line in md.read_text().splitlines() if line.startswith("| brevity |")]
    n = len(records)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].startswith(f"100.0% ({n}/{n})")  # A: every session's replies were short
    assert cells[2].startswith(f"{100 * passes_b / n:.1f}% ({passes_b}/{n})")
    assert int(cells[4]) == n - passes_b  # regressed: paired keys that passed in A only


class Never:
    name = "never"

    def grade(self, ctx: object) -> Check:
        return Check(passed=False, detail="never satisfied")


def test_a_grader_object_given_in_python_gates_the_verdict(tmp_path: Path) -> None:
    suite = simlab.Suite(
        personas=["terse_en"], goals=["one_way"], modes=[simlab.Mode.FULL], reps=2,
        target="reference:v2", persona_dirs=[str(ROOT / "personas")],
        goal_dirs=[str(ROOT / "goals")],
    )  # fmt: skip
    builtin = simlab.run(suite, out=tmp_path, progress=False)
    assert all(r.passed for r in builtin.records)
    graders = ["goal_completed", "constraints", "confirmation", "trajectory", Never()]
    strict = simlab.run(suite, out=tmp_path, progress=False, graders=graders)
    assert not any(r.passed for r in strict.records)
    assert all(r.checks["never"].detail == "never satisfied" for r in strict.records)
    info = json.loads(strict.paths.run_json.read_text())
    assert info["overrides"]["graders"][-1] == f"{__name__}:Never"


def test_require_and_min_score_make_the_pass_rule() -> None:
    goal = simlab.Goal.model_validate(
        {"id": "g", "title": "g", "final_tool": "refund",
         "facts": [{"id": "ref", "slot": "booking_ref", "value": "AB12CD"}]}
    )  # fmt: skip
    checks = {
        "goal_completed": Check(name="goal_completed", passed=True),
        "style": Check(name="style", passed=False, score=0.5),
    }
    owner = {"goal_completed": "goal_completed", "style": "style"}
    assert score_checks(checks, owner, goal, Grading()) == (100.0, False)
    # require adds to the default rule: the failing style check still counts
    assert score_checks(checks, owner, goal, Grading(require=["goal_*"])) == (100.0, False)
    assert score_checks(checks, owner, goal, Grading(waive=["style"])) == (100.0, True)
    assert uncounted_checks(checks, owner, Grading(waive=["style"])) == ("style",)
    weighted = Grading(weights={"goal_completed": 1, "style": 1}, waive=["style"])
    assert score_checks(checks, owner, goal, weighted) == (75.0, True)
    assert uncounted_checks(checks, owner, weighted) == ()  # waived, but weighed in the score
    floor = weighted.model_copy(update={"min_score": 80})
    assert score_checks(checks, owner, goal, floor) == (75.0, False)


class HouseRule:
    """Passes every session: marks which sessions a run's own graders graded."""

    name = "house_rule"

    def grade(self, ctx: object) -> Check:
        return Check(passed=True, detail="graded by the run's own graders")


def test_a_runs_experiments_grade_their_reruns_with_the_runs_own_graders(
    tmp_path: Path,
) -> None:
    suite = simlab.Suite(
        personas=["terse_en"], goals=["one_way"], modes=[simlab.Mode.FULL], reps=2,
        target="reference:v2", persona_dirs=[str(ROOT / "personas")],
        goal_dirs=[str(ROOT / "goals")], perturbation_dirs=[str(ROOT / "perturbations")],
        experiments=["brittleness"],
    )  # fmt: skip
    graders = ["goal_completed", "constraints", "confirmation", "trajectory", "agency", HouseRule()]
    result = simlab.run(suite, out=tmp_path, progress=False, graders=graders)
    reruns = [
        json.loads(line)["record"]
        for line in (result.run_dir / "brittleness_sessions.jsonl").read_text().splitlines()
    ]
    assert reruns  # the passing sessions were re-run under perturbations
    graded = [r for r in reruns if r["status"] == "ok"]
    assert graded and all("house_rule" in r["checks"] for r in graded)
    # a grader that reads the goal's domain (agency) judges the re-runs as it did the run
    in_run = {n for r in result.records for n in r.checks if "agency" in n}
    assert in_run and all(in_run <= set(r["checks"]) for r in graded)

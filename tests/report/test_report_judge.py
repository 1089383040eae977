"""The judge's own pass rate and its agreement with the code graders, in judged runs' reports."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.core import Check, SessionKey
from simlab.graders import DEFAULT_RUBRIC, criteria_verdict, rubric_criteria
from simlab.report import summarize
from simlab.spec import Bucket
from simlab.store import SessionRecord, Status, StopReason
from simlab.testing import FakeProvider, FakeProviderConfig, roleplay

ROOT = Path(__file__).resolve().parents[2]


def _record(
    rep: int,
    code: bool,
    judge: bool | None,
    status: Status = "ok",
    meta: dict[str, str] | None = None,
    criteria: dict[str, bool | None] | None = None,
) -> SessionRecord:
    checks = {"goal_completed": Check(passed=code, detail="", turn=None)}
    if judge is not None:
        checks["judge"] = Check(passed=judge, detail="r", turn=None, criteria=criteria)
    return SessionRecord(
        key=SessionKey(persona="terse_en", goal="one_way", mode="full", rep=rep),
        seed=rep,
        status=status,
        stop_reason=StopReason.GOAL_REACHED if status == "ok" else StopReason.INFRA_ERROR,
        n_user_turns=3,
        score=(100.0 if code else 0.0) if status == "ok" else None,
        passed=code if status == "ok" else None,
        checks=checks if status == "ok" else {},
        meta=meta or {},
    )


def test_judge_section_by_hand() -> None:
    # (code, judge): both pass 4, code pass/judge fail 1, code fail/judge pass 2, both fail 3
    verdicts = [(True, True)] * 4 + [(True, False)] + [(False, True)] * 2 + [(False, False)] * 3
    records = [_record(i, c, j) for i, (c, j) in enumerate(verdicts)]
    records.append(_record(20, True, None, meta={"grader_error": "JudgeError: not JSON"}))
    records.append(_record(21, False, None, status="error"))
    s = summarize(records, [Bucket(name="all", min=1, max=None)], seed=0)["judge"]
    assert s["n"] == 10 and s["no_verdict"] == 1
    assert (s["judge"]["passes"], s["code"]["passes"], s["agreement"]["passes"]) == (6, 5, 7)
    assert s["table"] == {
        "both_pass": 4,
        "judge_pass_code_fail": 2,
        "judge_fail_code_pass": 1,
        "both_fail": 3,
    }
    # p_o = 0.7; code passes 0.5, judge 0.6: p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa 0.4
    assert s["kappa"]["value"] == pytest.approx(0.4)
    assert s["kappa"]["expected"] == pytest.approx(0.5)
    # Wilson 95% of 6/10: [0.3127, 0.8318]
    assert s["judge"]["ci"] == pytest.approx([0.31267, 0.83182], abs=1e-4)


def test_criteria_section_by_hand() -> None:
    answers: list[dict[str, bool | None]] = [
        {"resolved": True, "confirmed": True, "no_repeat": True},
        {"resolved": True, "confirmed": None, "no_repeat": False},
        {"resolved": False, "confirmed": None, "no_repeat": False},
        {"resolved": True, "confirmed": True, "no_repeat": True},
    ]
    records = [_record(i, True, criteria_verdict(a), criteria=a) for i, a in enumerate(answers)]
    records.append(_record(9, True, True))  # judged on a rubric without criteria: in none
    s = summarize(records, [Bucket(name="all", min=1, max=None)], seed=0)["judge"]
    c = s["criteria"]
    assert list(c) == ["resolved", "confirmed", "no_repeat"]
    assert (c["resolved"]["passes"], c["resolved"]["n"], c["resolved"]["not_applicable"]) == (
        3,
        4,
        0,
    )
    # confirmed applied to 2 sessions (held in both), did not apply to 2
    assert (c["confirmed"]["passes"], c["confirmed"]["n"], c["confirmed"]["not_applicable"]) == (
        2,
        2,
        2,
    )
    assert (c["no_repeat"]["passes"], c["no_repeat"]["n"]) == (2, 4)
    # Wilson 95% of 2/4: [0.1500, 0.8500]
    assert c["no_repeat"]["ci"] == pytest.approx([0.15004, 0.84996], abs=1e-4)
    assert s["judge"]["passes"] == 3  # the two all-held sessions and the one without criteria


def test_an_unjudged_run_has_no_judge_section() -> None:
    records = [_record(i, i % 2 == 0, None) for i in range(4)]
    assert summarize(records, [Bucket(name="all", min=1, max=None)], seed=0)["judge"] == {}


def test_a_judged_run_reports_the_judge_beside_the_code_graders(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        json.dumps(
            {
                "target": "reference:v1",
                "seed": 4,
                "reps": 2,
                "personas": ["terse_en", "fickle_vi"],
                "goals": ["one_way", "refund"],
                "persona_dirs": [str(ROOT / "personas")],
                "goal_dirs": [str(ROOT / "goals")],
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    argv = ["run", str(suite), "--llm", "judge=anthropic", "--out", str(out)]
    with FakeProvider(FakeProviderConfig(), roleplay).serve_in_thread() as url:
        env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-test"}
        proc = simlab(*argv, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Judge vs code graders" in proc.stdout and "Cohen's kappa (judge vs code)" in proc.stdout
    assert "Judge criteria" in proc.stdout
    (run_dir,) = list(out.iterdir())
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    judged = [r for r in rows if r["status"] == "ok" and "judge" in r["checks"]]
    assert len(judged) == 16
    j = [r["checks"]["judge"]["passed"] for r in judged]
    c = [r["passed"] for r in judged]
    section = json.loads((run_dir / "summary.json").read_text())["judge"]
    # recomputed from the lines alone
    agree = sum(a == b for a, b in zip(j, c, strict=True)) / 16
    chance = (sum(j) / 16) * (sum(c) / 16) + (1 - sum(j) / 16) * (1 - sum(c) / 16)
    assert (section["judge"]["passes"], section["code"]["passes"]) == (sum(j), sum(c))
    assert section["agreement"]["rate"] == pytest.approx(agree)
    assert section["kappa"]["value"] == pytest.approx((agree - chance) / (1 - chance))
    for report in ("report.md", "report.html"):
        text = (run_dir / report).read_text(encoding="utf-8")
        assert "Judge vs code graders" in text and "judge pass rate" in text
        assert "Judge criteria" in text and "no_repeat" in text and "Did not apply" in text
    # Every judge check answers every criterion of the shipped rubric; its verdict is theirs.
    ids = [c.id for c in rubric_criteria(DEFAULT_RUBRIC.read_text(encoding="utf-8"))]
    answers = [r["checks"]["judge"]["criteria"] for r in judged]
    assert all(list(a) == ids for a in answers)
    assert j == [criteria_verdict(a) for a in answers]
    # The code graders' checks carry no criteria: their lines are as before.
    assert all("criteria" not in c for r in judged for n, c in r["checks"].items() if n != "judge")
    # Each criterion's row recomputed from the lines alone; the played v1 agent breaks some.
    for cid in ids:
        applied = [a[cid] for a in answers if a[cid] is not None]
        row = section["criteria"][cid]
        assert (row["passes"], row["n"]) == (sum(applied), len(applied))
        assert row["not_applicable"] == len(answers) - len(applied)
    # reference v1 loses earlier turns (truncation), so some users must repeat a fact twice
    no_repeat = section["criteria"]["no_repeat"]
    assert 0 < no_repeat["passes"] < no_repeat["n"] == 16

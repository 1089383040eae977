"""The drop gates' rule: pass when a larger drop is ruled out, fail only when a drop is
shown, otherwise inconclusive; identical runs never fail; regressions worst first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import simlab
from simlab.compare import Gates, cli_main, compare_runs, evaluate_gates, load_run
from simlab.core import AgentReply, Transcript, Turn, UserTurn
from simlab.spec import starter_dir

from .conftest import make_record as rec
from .conftest import write_run


def _run(path: Path, passes: dict[str, tuple[int, int]]) -> Path:
    turns = {"2-4": 3, "5-9": 7, "10+": 12}
    records = [
        rec("p", f"g{name}", i, turns=turns[name], passed=i < passed)
        for name, (passed, n) in passes.items()
        for i in range(n)
    ]
    return write_run(path, records)


# 10+ holds 34 sessions: its paired interval on an unchanged run is about +-9.5 points,
# which the old rule (fail when the lower bound is under -5) failed.
SMALL_TAIL = {"2-4": (900, 1063), "5-9": (162, 439), "10+": (4, 34)}


def test_a_run_compared_with_itself_never_fails_a_small_bucket(tmp_path: Path) -> None:
    run = _run(tmp_path / "R", SMALL_TAIL)
    c = compare_runs(load_run(run), load_run(run))
    results = {r.name: r for r in evaluate_gates(c, Gates())}
    tail = results["max_bucket_drop_points[10+]"]
    assert tail.status == "inconclusive"
    assert "McNemar p = 1;" in tail.message
    assert "no drop is shown" in tail.message
    assert {r.status for r in results.values()} <= {"passed", "inconclusive"}
    assert cli_main([str(run), str(run), "--quiet"]) == 0


def test_an_identical_run_with_other_seeds_is_judged_by_the_same_rule(tmp_path: Path) -> None:
    a = _run(tmp_path / "A", SMALL_TAIL)
    # the same outcomes under other seeds: nothing pairs
    b = write_run(
        tmp_path / "B",
        [
            rec("p", f"g{name}", i, turns=t, passed=i < passed).model_copy(
                update={"seed": 10_000 + i}
            )
            for (name, (passed, n)), t in zip(SMALL_TAIL.items(), (3, 7, 12), strict=True)
            for i in range(n)
        ],
    )
    c = compare_runs(load_run(a), load_run(b))
    assert c.overall.interval == "independent"
    statuses = {r.name: r.status for r in evaluate_gates(c, Gates())}
    assert statuses["max_bucket_drop_points[10+]"] == "inconclusive"
    assert "failed" not in statuses.values()


def test_fail_on_inconclusive_is_the_gate_files_choice(tmp_path: Path) -> None:
    run = _run(tmp_path / "R", SMALL_TAIL)
    gates = tmp_path / "gates.yaml"
    gates.write_text("fail_on_inconclusive: true\n")
    assert cli_main([str(run), str(run), "--gates", str(gates), "--quiet"]) == 1
    c = compare_runs(load_run(run), load_run(run))
    strict = {r.name: r for r in evaluate_gates(c, Gates(fail_on_inconclusive=True))}
    tail = strict["max_bucket_drop_points[10+]"]
    assert tail.status == "failed"
    assert tail.message.endswith("(fail_on_inconclusive: an inconclusive gate fails)")


def test_min_pairs_says_what_it_requires_before_what_is_paired(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [rec("p", "g", i, turns=7) for i in range(5)])
    b = write_run(
        tmp_path / "B",
        [rec("p", "g", i, turns=7).model_copy(update={"seed": 99 + i}) for i in range(5)],
    )
    c = compare_runs(load_run(a), load_run(b))
    gate = {r.name: r for r in evaluate_gates(c, Gates())}["min_pairs"]
    assert gate.status == "passed"
    assert gate.message == (
        "5 key(s) graded in both runs (at least 1 required); 0 of them paired "
        "(the same seed in both)"
    )


def test_regressions_are_listed_worst_first(tmp_path: Path) -> None:
    # 50 keys lose 5 points each (pass -> fail at the threshold), 3 lose 90 points
    a = write_run(
        tmp_path / "A", [rec("p", "g", i, turns=3, passed=True, score=95.0) for i in range(53)]
    )
    b = write_run(
        tmp_path / "B",
        [rec("p", "g", i, turns=3, passed=False, score=90.0 if i < 50 else 5.0) for i in range(53)],
    )
    c = compare_runs(load_run(a), load_run(b))
    assert [r.key.rep for r in c.regressions[:3]] == [50, 51, 52]
    assert [r.score_b for r in c.regressions[3:]] == [90.0] * 50
    assert [r.key.rep for r in c.regressions[3:6]] == [0, 1, 2]  # ties by line in B


def test_compare_warns_when_the_judges_differ(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [rec("p", "g", i, turns=3) for i in range(4)])
    b = write_run(tmp_path / "B", [rec("p", "g", i, turns=3) for i in range(4)])
    for run, model in ((a, "claude-haiku-4-5"), (b, "claude-sonnet-4-5")):
        info = json.loads((run / "run.json").read_text())
        info["suite"]["judge"] = {"llm": {"backend": "anthropic", "model": model}}
        (run / "run.json").write_text(json.dumps(info))
    c = compare_runs(load_run(a), load_run(b))
    (warning,) = [w for w in c.warnings if "judges differ" in w]
    assert warning.startswith(
        "The runs' LLM judges differ (A: anthropic claude-haiku-4-5, the shipped rubric; "
        "B: anthropic claude-sonnet-4-5, the shipped rubric)"
    )
    same = compare_runs(load_run(a), load_run(a))
    assert not [w for w in same.warnings if "judges differ" in w]


def _talk(*turns: tuple[str, str]) -> Transcript:
    return Transcript(
        turns=[
            Turn(index=i, user=UserTurn(text=u), agent=AgentReply(text=a))
            for i, (u, a) in enumerate(turns, start=1)
        ]
    )


def test_a_flipped_session_is_shown_side_by_side_from_the_turn_they_part(
    tmp_path: Path,
) -> None:
    same = ("I want green tea.", "How many packs?")
    a = rec("p", "g", 0, turns=3, passed=True).model_copy(
        update={"transcript": _talk(same, ("Two <b>packs</b>.", "Booked 2 packs."))}
    )
    b = rec("p", "g", 0, turns=3, passed=False, score=10.0).model_copy(
        update={"transcript": _talk(same, ("Two <b>packs</b>.", "Booked 3 packs."))}
    )
    md = tmp_path / "c.md"
    run_a, run_b = write_run(tmp_path / "A", [a]), write_run(tmp_path / "B", [b])
    cli_main([str(run_a), str(run_b), "--markdown", str(md), "--quiet"])
    text = md.read_text()
    assert "## p/g/sharded/0: passed in A, failed in B (score 100.0 -&gt; 10.0)" in text
    assert "| Turn | A | B |" in text
    row = [line for line in text.splitlines() if line.startswith("| 2 |")]
    assert row == [
        "| 2 | user: Two &lt;b&gt;packs&lt;/b&gt;. / agent: Booked 2 packs. | user: Two "
        "&lt;b&gt;packs&lt;/b&gt;. / agent: Booked 3 packs. |"
    ]
    assert not [line for line in text.splitlines() if line.startswith("| 1 |")]


def test_a_144_session_suite_of_ones_own_compared_with_itself_fails_no_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "shop"
    shutil.copytree(starter_dir(), project)
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    result = simlab.run("simlab.yaml", reps=18, progress=False)
    assert len(result.records) == 144
    run = result.paths.run_dir.resolve()
    c = compare_runs(load_run(run), load_run(run))
    assert "failed" not in {r.status for r in evaluate_gates(c, Gates())}
    assert cli_main([str(run), str(run), "--quiet"]) == 0

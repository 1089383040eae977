import json
import random
from pathlib import Path

import pytest
from rich.console import Console

from simlab.compare import newcombe_interval
from simlab.engine import hashed_test
from simlab.report import (
    RunRow,
    render_runs,
    run_rows,
    runs_cli,
    trend_checks,
    trend_interval,
    trends,
)
from simlab.spec import Suite, load_goals
from simlab.stats import wilson_interval
from simlab.store import write_json

ROOT = Path(__file__).resolve().parents[2]


def fake_run(results: Path, run_id: str, agent: str, pass_rate: float | None) -> None:
    run_dir = results / run_id
    run_dir.mkdir(parents=True)
    info = {"schema_version": 1, "run_id": run_id, "created_at": run_id, "suite": {"name": "s"}}
    write_json(run_dir / "run.json", {**info, "models": {"agent": agent}})
    if pass_rate is not None:
        overall = {
            "n": 10,
            "pass_rate": pass_rate,
            "pass_ci": [0.1, 0.9],
            "aptitude": 90.0,
            "unreliability": 5.0,
        }
        write_json(run_dir / "summary.json", {"schema_version": 1, "overall": overall})


def test_trend_compares_with_the_previous_run_of_the_same_target(tmp_path: Path) -> None:
    fake_run(tmp_path, "20260101-000000-a", "reference:v1", 0.50)
    fake_run(tmp_path, "20260102-000000-b", "reference:v2", 0.90)
    fake_run(tmp_path, "20260103-000000-c", "reference:v1", 0.60)
    fake_run(tmp_path, "20260104-000000-d", "reference:v1", None)  # interrupted
    rows = run_rows(tmp_path)
    assert [r.run_id[-1] for r in rows] == ["a", "b", "c", "d"]
    got = trends(rows)
    assert got[0] is None and got[1] is None and got[3] is None
    assert got[2] is not None and abs(got[2] - 0.10) < 1e-9


def test_cli_lists_runs_as_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    fake_run(tmp_path, "20260101-000000-a", "reference:v1", 0.5)
    assert runs_cli([str(tmp_path), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["pass_rate"] == 0.5 and row["trend"] is None
    assert runs_cli([str(tmp_path / "missing")]) == 2


def test_a_run_id_with_terminal_escapes_is_shown_inert(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    fake_run(tmp_path, "evil", "reference:v1", 0.5)
    info = json.loads((tmp_path / "evil" / "run.json").read_text())
    info["run_id"] = "evil\x1b]0;pwned\x07\x1b[31mRED"  # run.json is user data
    write_json(tmp_path / "evil" / "run.json", info)
    assert runs_cli([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b" in out


def _row(passes: int, n: int) -> RunRow:
    lo, hi = wilson_interval(passes, n)
    return RunRow("r", "", "s", "t", n, passes / n, (lo, hi), None, None)


def test_the_trend_interval_is_newcombes_hybrid_score_interval() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 - 48/80 = 0.2000,
    # method 10 (score, no continuity correction): 0.0524 to 0.3339
    lo, hi = trend_interval(_row(48, 80), _row(56, 70))  # type: ignore[misc]
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)
    # the passes read back from a row's rate and n: a run that went from 31/48 to 48/48
    assert trend_interval(_row(31, 48), _row(48, 48)) == pytest.approx(
        newcombe_interval(31, 48, 48, 48)
    )


def test_the_trend_interval_covers_an_unchanged_rate_about_95_percent_of_the_time() -> None:
    rng = random.Random(7)
    trials, covered = 2000, 0
    for _ in range(trials):
        a = sum(rng.random() < 0.6 for _ in range(40))
        b = sum(rng.random() < 0.6 for _ in range(40))
        ci = trend_interval(_row(a, 40), _row(b, 40))
        assert ci is not None
        covered += ci[0] <= 0.0 <= ci[1]
    assert 0.93 <= covered / trials <= 0.99, covered / trials


def test_the_runs_table_gives_every_figure_its_interval(tmp_path: Path) -> None:
    fake_run(tmp_path, "20260101-000000-a", "reference:v1", 0.50)
    fake_run(tmp_path, "20260102-000000-b", "reference:v1", 0.60)
    results = tmp_path / "20260103-000000-c"
    fake_run(tmp_path, "20260103-000000-c", "reference:v1", 0.60)
    summary = json.loads((results / "summary.json").read_text())
    summary["overall"] = {"n": 0, "pass_rate": None, "pass_ci": None}  # all errors
    write_json(results / "summary.json", summary)
    console = Console(record=True, width=300)
    render_runs(run_rows(tmp_path), console)
    text = console.export_text()
    lo, hi = trend_interval(*run_rows(tmp_path)[:2])  # type: ignore[misc]
    assert f"+10.0 [{lo * 100:+.1f}, {hi * 100:+.1f}]" in text
    assert "no graded session (all errors)" in text  # it said "no summary (interrupted?)"
    assert "Newcombe's interval for independent samples" in text


def test_a_run_id_is_never_cut_in_a_narrow_table(tmp_path: Path) -> None:
    # with the intervals added, a 160-column table cut ids to "20260101-000000-…"
    fake_run(tmp_path, "20260101-000000-abcd", "reference:v1", 0.50)
    console = Console(record=True, width=120)
    render_runs(run_rows(tmp_path), console)
    assert "20260101-000000-abcd" in console.export_text()


def test_runs_from_before_the_test_hash_keep_their_trend_marked_unchecked(
    tmp_path: Path,
) -> None:
    fake_run(tmp_path, "20260101-000000-a", "reference:v1", 0.50)
    fake_run(tmp_path, "20260102-000000-b", "reference:v1", 0.60)
    rows = run_rows(tmp_path)
    assert [r.test_hash for r in rows] == [None, None]
    assert trend_checks(rows) == [None, "unchecked"]
    console = Console(record=True, width=300)
    render_runs(rows, console)
    text = console.export_text()
    assert "] unchecked" in text and "the test may have changed" in text


def test_a_test_hash_leaves_the_target_out_but_not_the_goals() -> None:
    suite = Suite(domains=["travel"], target="reference:v1")  # type: ignore[arg-type]
    llm_agent = {"kind": "llm", "agent": str(ROOT / "domains/travel/agents/booking_llm.yaml")}
    goal = load_goals([ROOT / "goals"])["refund"]
    plain = hashed_test(suite, {}, {"refund": goal}, ROOT)
    # another target, even an LLM agent kept in the domain's own folder: the same test
    for target in ("reference:v2", llm_agent):
        other = suite.model_copy(update={"target": Suite(target=target).target})  # type: ignore[arg-type]
        assert hashed_test(other, {}, {"refund": goal}, ROOT) == plain
        assert hashed_test(other, {}, {"refund": goal}, ROOT, {"target": "mine"}) == plain
    edited = goal.model_copy(update={"title": goal.title + "!"})
    assert hashed_test(suite, {}, {"refund": edited}, ROOT) != plain
    assert (
        hashed_test(suite.model_copy(update={"max_turns": 5}), {}, {"refund": goal}, ROOT) != plain
    )

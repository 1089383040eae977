import json
from pathlib import Path

from simlab.report import run_rows, runs_cli, trends
from simlab.store import write_json


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

"""What ``simlab diagnose`` prints, read by someone who did not write it: the headline
says which sessions were diagnosed, the tables' headers are words, errors are set apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.cli import main

REPO = Path(__file__).resolve().parents[2]
AGENT = """
def reply(history, ctx):
    if ctx.seed % 2 == 0:
        raise RuntimeError("agent crashed")
    return "Sorry, I cannot book that."
"""


def _run(folder: Path, target: str, reps: int) -> Path:
    (folder / "halfcrash.py").write_text(AGENT, encoding="utf-8")
    suite = folder / "suite.yaml"
    suite.write_text(
        f"name: own\npersonas: [chatty_en]\ngoals: [one_way]\nmodes: [full]\nreps: {reps}\n"
        f"target: {target}\npersona_dirs: [{REPO / 'personas'}]\n"
        f"goal_dirs: [{REPO / 'goals'}]\n",
        encoding="utf-8",
    )
    assert main(["run", str(suite), "--out", str(folder / "res"), "--quiet"]) in (0, 1)
    (run_dir,) = (folder / "res").iterdir()
    return run_dir


def test_headline_counts_graded_failures_and_sets_errors_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    run_dir = _run(tmp_path, "halfcrash:reply", reps=6)
    capsys.readouterr()
    assert main(["diagnose", str(run_dir), "--no-write"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    errors = sum(1 for line in (run_dir / "sessions.jsonl").open() if '"status":"error"' in line)
    assert errors and errors < 6
    assert lines[0] == (
        f"run {run_dir.name} (halfcrash:reply): {6 - errors} of {6 - errors} graded sessions "
        f"failed and are diagnosed; {errors} ended in an error (not graded, not diagnosed)"
    )
    assert "ok sessions" not in out and "\\" not in out  # no "diagnosed \ true" header
    assert "turn before" in out
    assert "'ask' (a question, no tool)" in " ".join(out.split())


def test_a_run_without_failures_says_there_is_nothing_to_diagnose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path, "reference:v2", reps=2)
    capsys.readouterr()
    assert main(["diagnose", str(run_dir), "--no-write"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"run {run_dir.name} (reference:v2): none of 2 graded sessions failed: nothing to diagnose"
    ]

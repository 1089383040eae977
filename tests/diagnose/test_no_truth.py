"""Diagnosis of a user's own target, which records no hidden truth: no confusion matrix."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.cli import main

REPO = Path(__file__).resolve().parents[2]
NOTE = (
    "no accuracy figures: the target does not report the true cause of its failures "
    "(the reference agent does)"
)


def _suite(folder: Path, experiments: str) -> Path:
    (folder / "mymod.py").write_text(
        'def reply(history, ctx):\n    return "Sorry, I cannot book that."\n', encoding="utf-8"
    )
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: own\npersonas: [chatty_en]\ngoals: [one_way]\nmodes: [full]\nreps: 2\n"
        f"target: mymod:reply\nexperiments: {experiments}\n"
        f"persona_dirs: [{REPO / 'personas'}]\ngoal_dirs: [{REPO / 'goals'}]\n",
        encoding="utf-8",
    )
    return suite


def test_report_after_diagnose_of_an_own_target_says_there_is_no_truth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = _suite(tmp_path, "[]")
    assert main(["run", str(suite), "--out", str(tmp_path / "res"), "--quiet"]) == 0
    (run_dir,) = (tmp_path / "res").iterdir()
    assert main(["diagnose", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 graded sessions failed and are diagnosed" in out and NOTE in out
    (run_dir / "report.html").unlink()
    assert main(["report", str(run_dir)]) == 0
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert NOTE in html
    assert "Counts of transitions into the first failure." in html


def test_a_suite_with_the_diagnosis_experiment_and_an_own_target_writes_its_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = _suite(tmp_path, "[diagnosis]")
    assert main(["run", str(suite), "--out", str(tmp_path / "res"), "--quiet"]) == 0
    (run_dir,) = (tmp_path / "res").iterdir()
    assert (run_dir / "diagnosis.json").is_file()
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert NOTE in html and "Pass rate per planned-length bucket" in html

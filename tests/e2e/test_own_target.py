"""A user's own ``module:attr`` target is found beside the suite, or in the current folder,
with no PYTHONPATH: the console script (here ``python -P``) puts neither on ``sys.path``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT = """
from my_phrases import SORRY  # a neighbour module: the folder stays importable


def reply(history, ctx):
    return SORRY
"""


def _project(folder: Path) -> None:
    folder.mkdir()
    (folder / "my_agent.py").write_text(AGENT, encoding="utf-8")
    (folder / "my_phrases.py").write_text('SORRY = "Sorry, I cannot book that."\n')


def _suite(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    suite = folder / "suite.yaml"
    body = {
        "personas": ["chatty_en"],
        "goals": ["one_way"],
        "modes": ["full"],
        "reps": 1,
        "target": "my_agent:reply",
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    suite.write_text(json.dumps(body), encoding="utf-8")
    return suite


def _run(suite: Path, cwd: Path, out: Path, forbidden: Path) -> subprocess.CompletedProcess[str]:
    path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    assert all(not Path(p).resolve().is_relative_to(forbidden) for p in path)
    return subprocess.run(
        # -P: no script or current folder on sys.path, as with the installed `simlab`
        [sys.executable, "-P", "-m", "simlab.cli", "run", str(suite), "--out", str(out)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
    )


def _graded(out: Path) -> list[str]:
    (run_dir,) = out.iterdir()
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["status"] for line in lines]


def test_a_module_beside_the_suite_is_found_from_another_folder(tmp_path: Path) -> None:
    _project(tmp_path / "project")
    suite = _suite(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = _run(suite, elsewhere, tmp_path / "out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "target: my_agent:reply" in proc.stderr
    assert _graded(tmp_path / "out") == ["ok"]
    # diagnose replays the failed session against the target: found from the run's suite
    (run_dir,) = (tmp_path / "out").iterdir()
    diagnose = subprocess.run(
        [sys.executable, "-P", "-m", "simlab.cli", "diagnose", str(run_dir)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=False,
    )
    assert diagnose.returncode == 0, diagnose.stderr
    data = json.loads((run_dir / "diagnosis.json").read_text(encoding="utf-8"))
    verifications = [s["verification"] for s in data["sessions"] if s["verification"]]
    assert verifications and all(v["replay_passed"] is not None for v in verifications)


def test_a_module_in_the_current_folder_is_found(tmp_path: Path) -> None:
    _project(tmp_path / "project")
    suite = _suite(tmp_path / "suites")
    proc = _run(suite, tmp_path / "project", tmp_path / "out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _graded(tmp_path / "out") == ["ok"]


def test_a_module_found_nowhere_names_where_it_was_looked_for(tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suites")
    proc = _run(suite, tmp_path, tmp_path / "out", tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot import module 'my_agent'" in proc.stderr
    assert f"looked in {suite.parent.resolve()}, {tmp_path.resolve()}, then sys.path" in proc.stderr

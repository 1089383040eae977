"""Two resumes of one run started together: every session runs once (issue 14, item 5).

Resume used to read ``sessions.jsonl`` before taking the run's lock, so a second
resume that read the file inside that window re-ran every session the first one
finished. ``SIMLAB_TEST_PAUSE_AFTER_READ_S`` widens the window between reading
and writing; the slower resume pauses longer, so before the fix it took the lock
after the first was done and ran every pending session a second time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from run_simlab import simlab

ROOT = Path(__file__).resolve().parents[2]
N_SESSIONS = 3 * 3 * 2 * 2


def test_two_resumes_started_together_run_each_session_once(tmp_path: Path) -> None:
    suite = {
        "name": "race",
        "personas": ["terse_en", "fickle_vi", "impatient_en"],
        "goals": ["one_way", "refund", "family_child"],
        "modes": ["full", "sharded"],
        "reps": 2,
        "target": "reference:v1",
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    suite_path = tmp_path / "suite.yaml"
    suite_path.write_text(json.dumps(suite), encoding="utf-8")
    first = simlab("run", str(suite_path), "--out", str(tmp_path / "out"), "--quiet")
    assert first.returncode == 0, first.stderr
    (run_dir,) = (tmp_path / "out").iterdir()
    sessions = run_dir / "sessions.jsonl"
    lines = sessions.read_text(encoding="utf-8").splitlines(keepends=True)
    sessions.write_text("".join(lines[:10]), encoding="utf-8")  # as if stopped after 10

    resumes = [
        subprocess.Popen(
            [sys.executable, "-m", "simlab.cli", "run", "--resume", str(run_dir), "--quiet"],
            env={**os.environ, "SIMLAB_TEST_PAUSE_AFTER_READ_S": pause},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for pause in ("2", "6")
    ]
    outcomes = [(p.wait(timeout=120), p.communicate()[1]) for p in resumes]

    codes = sorted(code for code, _ in outcomes)
    assert codes == [0, 2], outcomes
    refused = next(err for code, err in outcomes if code == 2)
    assert "another simlab process" in refused and "resum" in refused
    assert "Traceback" not in refused
    records = [json.loads(line) for line in sessions.read_text(encoding="utf-8").splitlines()]
    keys = [json.dumps(r["key"], sort_keys=True) for r in records]
    assert len(keys) == N_SESSIONS  # each key once: none ran twice
    assert len(set(keys)) == N_SESSIONS

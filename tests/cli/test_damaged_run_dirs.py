"""Damaged run directories (issue 14, item 3): ``report``, ``compare`` and ``runs`` never crash.

The audit's cases: a ``run.json`` whose ``suite`` is a string or whose fields
have the wrong types (16 crashes), and a FIFO in place of ``sessions.jsonl``
(both commands hung). Each must end with exit 0, 1 or 2 and a message, no
traceback: ``run.json`` is read through its model (``simlab.store.RunInfo``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from simlab.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real two-session run to damage copies of."""
    folder = tmp_path_factory.mktemp("damaged")
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: tiny\npersonas: [chatty_en, terse_en]\ngoals: [one_way]\nmodes: [full]\n"
        f"reps: 1\ntarget: reference:v1\npersona_dirs: [{ROOT / 'personas'}]\n"
        f"goal_dirs: [{ROOT / 'goals'}]\n",
        encoding="utf-8",
    )
    assert main(["run", str(suite), "--out", str(folder / "res"), "--quiet"]) == 0
    (run_dir,) = (folder / "res").iterdir()
    return run_dir


def damaged(finished_run: Path, where: Path, change: dict[str, Any]) -> Path:
    """A copy of ``finished_run`` in ``where/results/damaged`` with ``run.json`` fields replaced."""
    run_dir = Path(shutil.copytree(finished_run, where / "results" / "damaged"))
    info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    for dotted, value in change.items():
        *parents, last = dotted.split(".")
        holder = info
        for part in parents:
            holder = holder[part]
        holder[last] = value
    (run_dir / "run.json").write_text(json.dumps(info), encoding="utf-8")
    return run_dir


def commands(good: Path, bad: Path) -> dict[str, list[str]]:
    return {
        "report": ["report", str(bad)],
        "compare": ["compare", str(good), str(bad)],
        "runs": ["runs", str(bad.parent)],
    }


CHANGES = {
    "suite-string": {"suite": "default"},
    "suite-list": {"suite": [1, 2]},
    "buckets-int": {"suite.buckets": 5},
    "reps-string": {"suite.reps": "many"},
    "modes-int": {"suite.modes": 3},
    "personas-map": {"suite.personas": {"a": 1}},
    "models-string": {"models": "m"},
    "pricing-list": {"pricing": [1]},
}


@pytest.mark.parametrize("change", list(CHANGES), ids=list(CHANGES))
@pytest.mark.parametrize("command", ["report", "compare", "runs"])
def test_a_run_json_of_the_wrong_shape_is_a_message(
    capsys: pytest.CaptureFixture[str],
    finished_run: Path,
    tmp_path: Path,
    change: str,
    command: str,
) -> None:
    bad = damaged(finished_run, tmp_path, CHANGES[change])
    capsys.readouterr()
    code = main(commands(finished_run, bad)[command])
    out = capsys.readouterr()
    assert code in (0, 1, 2)
    assert "Traceback" not in out.err + out.out
    if command != "runs":  # runs lists the damaged run with why instead
        assert code == 2 and "run.json" in out.err


@pytest.mark.slow  # a hang is waited for
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("command", ["report", "compare", "runs"])
def test_a_fifo_in_place_of_sessions_jsonl_does_not_hang(
    finished_run: Path, tmp_path: Path, command: str
) -> None:
    bad = Path(shutil.copytree(finished_run, tmp_path / "results" / "damaged"))
    (bad / "sessions.jsonl").unlink()
    os.mkfifo(bad / "sessions.jsonl")
    argv = commands(finished_run, bad)[command]
    try:  # a subprocess: in-process, a hang would hang the test run
        proc = subprocess.run(
            [sys.executable, "-m", "simlab.cli", *argv],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"simlab {command} hung on a FIFO in place of sessions.jsonl")
    assert proc.returncode in (0, 1, 2)
    assert "Traceback" not in proc.stderr
    if command != "runs":
        assert proc.returncode == 2 and "sessions.jsonl" in proc.stderr


@pytest.mark.parametrize(
    "content",
    [b"", b'{"schema_version": 6, "key": {"pers'],
    ids=["empty", "a torn line only"],
)
def test_report_on_a_run_with_no_finished_session_says_so(
    capsys: pytest.CaptureFixture[str], finished_run: Path, tmp_path: Path, content: bytes
) -> None:
    bad = Path(shutil.copytree(finished_run, tmp_path / "results" / "damaged"))
    (bad / "sessions.jsonl").write_bytes(content)
    capsys.readouterr()
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "has no finished sessions to report on" in err and "Traceback" not in err


def test_report_names_the_line_of_a_bad_record_after_a_good_one(
    capsys: pytest.CaptureFixture[str], finished_run: Path, tmp_path: Path
) -> None:
    bad = Path(shutil.copytree(finished_run, tmp_path / "results" / "damaged"))
    good = (bad / "sessions.jsonl").read_bytes().splitlines()[0]
    (bad / "sessions.jsonl").write_bytes(good + b"\n" + b'{"key": 3}\n')
    capsys.readouterr()
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "sessions.jsonl:2" in err and "Traceback" not in err

"""Targets that will not stop: each session ends at its turn timeout, the run
ends by itself, and SIGTERM ends the process within seconds (issue 14, item 1).

Before the fix, the cancellation-ignoring async target recorded no session and
ignored SIGTERM, and the sync ones left a thread that kept the process alive
after the run: each test below then hit its subprocess timeout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

WEDGED = '''
import asyncio, pathlib, time

def _called():
    pathlib.Path(__file__).with_name("called").touch()

async def ignores_cancellation(messages, ctx):
    _called()
    while True:
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            continue

def sleeps(messages, ctx):
    _called()
    time.sleep(3600)
    return "never"

def spins(messages, ctx):
    _called()
    while True:
        pass

def holds_the_gil(messages, ctx):
    _called()
    import re
    re.match(r"(a+)+$", "a" * 64 + "b")  # catastrophic backtracking, in C, GIL held
    return "never"

class IgnoresCancellation:
    """A TargetAgent class whose reply swallows every cancellation."""
    async def reply(self, history, ctx):
        await ignores_cancellation([], ctx)
'''

TARGETS = [
    *[(name, "thread") for name in ("ignores_cancellation", "sleeps", "spins")],
    ("IgnoresCancellation", "thread"),
    # only another process can stop code that holds the GIL
    *[(name, "process") for name in ("ignores_cancellation", "spins", "holds_the_gil")],
    ("IgnoresCancellation", "process"),
]
# the default run tries one target of each way to wedge (a coroutine that swallows
# cancellation, a thread that spins, C code holding the GIL); the rest run with -m slow
DEFAULT_RUN = {
    ("ignores_cancellation", "thread"),
    ("spins", "thread"),
    ("holds_the_gil", "process"),
}
CASES = [
    pytest.param(t, id="-".join(t), marks=() if t in DEFAULT_RUN else pytest.mark.slow)
    for t in TARGETS
]
N_SESSIONS = 2 * 2 * 2  # personas x goals x reps, one mode


def wedged_suite(
    tmp_path: Path, target: tuple[str, str], timeout_s: float, concurrency: int = 2
) -> Path:
    (tmp_path / "wedged.py").write_text(WEDGED)
    suite = {
        "name": "wedged",
        "personas": ["terse_en", "fickle_vi"],
        "goals": ["one_way", "refund"],
        "modes": ["full"],
        "reps": 2,
        "target": {"kind": "callable", "ref": f"wedged:{target[0]}", "isolation": target[1]},
        "turn_timeout_s": timeout_s,
        "concurrency": concurrency,
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def env_for(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}


@pytest.mark.parametrize("target", CASES)
def test_every_session_ends_at_its_timeout_and_the_run_exits(
    tmp_path: Path, target: tuple[str, str]
) -> None:
    suite = wedged_suite(tmp_path, target, timeout_s=0.5)
    out = tmp_path / "out"
    # a wedged run never exits: the timeout turns that hang into a failure
    proc = subprocess.run(
        [sys.executable, "-m", "simlab.cli", "run", str(suite), "--out", str(out), "--quiet"],
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr  # nothing graded: every session errored
    assert "Traceback" not in proc.stderr
    (run_dir,) = out.iterdir()
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == N_SESSIONS
    for r in records:
        assert r["status"] == "error" and r["stop_reason"] == "agent_error"
        error = r["error"]
        assert (error["turn"], error["message"]) == (1, "turn timeout, no reply within 0.5s")
    assert (run_dir / "report.html").exists()


@pytest.mark.parametrize("target", CASES)
def test_sigterm_ends_a_wedged_run_within_seconds(tmp_path: Path, target: tuple[str, str]) -> None:
    # the turn timeout is far away: only SIGTERM can end this run
    suite = wedged_suite(tmp_path, target, timeout_s=600, concurrency=4)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simlab.cli", "run", str(suite), "--out", str(out), "--quiet"],
        env=env_for(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "called").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (tmp_path / "called").exists(), "the target was never called"
        time.sleep(0.3)  # let the other sessions reach the target too
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)  # generous: a wedged run never ends
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "simlab run --resume" in stderr
    assert "Traceback" not in stderr
    print(f"{target}: ended {took:.2f}s after SIGTERM")

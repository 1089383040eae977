"""Cheaper versions of the validity simulations in bench/validity (slow: minutes)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_same_agent_runs_with_different_seeds_raise_no_false_alarm(tmp_path: Path) -> None:
    # 6 pairs of default-suite runs at 2 reps: the agent is the same, so any alarm is
    # false; the seeds are fixed, so the outcome is too (no alarm in these 6 pairs).
    out = _run(
        "bench/validity/compare_false_alarms.py",
        *("--pairs", "6", "--reps", "2", "--work", str(tmp_path)),
    )
    line = next(x for x in out.splitlines() if x.startswith("ANY OF THE ABOVE"))
    assert re.search(r"\b0/6 =", line), out
    assert "regressions listed: 0 over all pairs" in out

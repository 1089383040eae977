"""bench/grader_costs.py still runs against a git ref (its figures are read, not asserted)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # a git export and two processes
def test_grader_costs_times_each_function_against_a_ref() -> None:
    proc = subprocess.run(
        [sys.executable, "bench/grader_costs.py", "--against", "HEAD", "--reps", "1",
         "--times", "1", "--passes", "1"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for name in ("tool_stages", "_from_calls", "tool_use", "redundant_calls", "violations"):
        assert f"  {name} " in proc.stdout and "ratio" in proc.stdout, proc.stdout

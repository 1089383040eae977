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
    # The shipped gates, but min_pairs scaled to 2 reps' 288 sessions (it asks for 500).
    shipped = (ROOT / "examples" / "ci" / "gates.yaml").read_text()
    gates = tmp_path / "gates.yaml"
    gates.write_text(re.sub(r"(?m)^min_pairs: 500", "min_pairs: 250", shipped))
    out = _run(
        "bench/validity/compare_false_alarms.py",
        *("--pairs", "6", "--reps", "2", "--work", str(tmp_path), "--gates", str(gates)),
    )
    line = next(x for x in out.splitlines() if x.startswith("ANY OF THE ABOVE"))
    assert re.search(r"\b0/6 =", line), out
    assert "regressions listed: 0 over all pairs" in out


@pytest.mark.slow
def test_interval_coverage_small_config_is_near_or_above_nominal() -> None:
    # 60 replications: a share of 60 has a standard error of ~3 points, so the check
    # is loose (>= 85%); bench/validity/interval_coverage.py prints the full table.
    out = _run(
        "bench/validity/interval_coverage.py",
        *("--replications", "60", "--resamples", "400", "--truth-draws", "4000"),
    )
    rows = [line for line in out.splitlines() if "%" in line and "[" in line]
    assert len(rows) == 4 * 7, out
    for line in rows:
        found = re.search(r"\s(\d+)\s+(\d+\.\d)%", line)
        if found and int(found.group(1)) >= 20:
            assert float(found.group(2)) >= 85.0, line
    # near-deterministic cells: every aptitude resample is 100, said as "no spread"
    apt = next(
        line for line in rows if line.startswith("near-deterministic") and "aptitude " in line
    )
    assert re.search(r"\s0\s+nan%", apt), apt


@pytest.mark.slow
def test_diagnosis_verification_is_specific_over_two_seeds(tmp_path: Path) -> None:
    # Two default-suite runs at 2 reps: the pooled false verification rate's upper
    # bound stays under 5%, while the one-turn replay alone (the old verification of
    # anchoring) "verifies" a large share of failures whose true cause is another one.
    out = _run(
        "bench/validity/diagnosis_specificity.py",
        *("--seeds", "2", "--reps", "2", "--work", str(tmp_path)),
    )
    pooled = out.split("POOLED", 1)[1]
    total = re.search(r"ALL \(specific\)\s+(\d+)/(\d+)\s+=\s+[\d.]+% \[[\d.]+, ([\d.]+)\]", pooled)
    assert total is not None and int(total.group(2)) > 200, out
    assert float(total.group(3)) <= 5.0, out
    alone = re.search(r"one_turn alone\s+(\d+)/(\d+)", pooled)
    assert alone is not None and int(alone.group(1)) / int(alone.group(2)) > 0.2, out
    assert "black box" in pooled and "Cohen's kappa" in pooled, out
    drift = re.search(r"drift first failures: diagnosed (\d+), true (\d+)", pooled)
    assert drift is not None and int(drift.group(2)) >= 1, out

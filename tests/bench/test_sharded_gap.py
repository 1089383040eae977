"""bench/validity/sharded_gap.py: the paired sharded - full changes and their difference."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
from run_simlab import simlab

from simlab.stats import score_differences

ROOT = Path(__file__).resolve().parents[2]


def _module() -> ModuleType:
    path = ROOT / "bench" / "validity" / "sharded_gap.py"
    spec = importlib.util.spec_from_file_location("sharded_gap", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gap_is_the_aptitude_change_minus_the_mean_change() -> None:
    gap = _module().gap_statistics
    # constant cells: every statistic moves by the same 40 points, so the gap is 0
    full, sharded = np.full((1, 3), 60.0), np.full((1, 3), 20.0)
    assert gap([full, sharded]).tolist() == [[-40.0, -40.0, 0.0]]
    # one sharded rep at 0 among 100s: the mean falls by 25, the P90 not at all
    full, sharded = np.array([[100.0] * 4]), np.array([[100.0, 100.0, 100.0, 0.0]])
    mean, apt, diff = gap([full, sharded])[0]
    assert (mean, apt, diff) == (-25.0, 0.0, 25.0)
    rng = np.random.default_rng(3)
    parts = [rng.uniform(0, 100, (5, 8)), rng.uniform(0, 100, (5, 8))]
    d = score_differences(parts)
    assert np.allclose(gap(parts), np.column_stack([d[:, 0], d[:, 1], d[:, 1] - d[:, 0]]))


def test_the_script_reads_a_run_by_domain_and_group(tmp_path: Path) -> None:
    suite = ROOT / "examples" / "bank" / "reference.yaml"
    ran = simlab("run", str(suite), "--reps", "3", "--quiet", "--out", str(tmp_path), cwd=ROOT)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    proc = subprocess.run(
        [sys.executable, "bench/validity/sharded_gap.py", str(run_dir), "--suite", str(suite)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line.split()[:3] for line in proc.stdout.splitlines()[1:]]
    assert rows == [["bank", "all", "24"], ["bank", "steady", "12"]]

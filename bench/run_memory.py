"""Peak memory of an offline run against the number of its sessions.

Runs ``simlab run`` (the default suite, the reference agent, the scripted user)
twice in child processes, at ``--small`` and ``--large`` sessions (the suite's
repetitions scaled to reach them), and reads each child's peak resident memory
from ``getrusage``. A run's memory should be bounded by what is in flight, not by
what it has finished: the ratio of the two peaks is the figure.

    python bench/run_memory.py [--small 10000] [--large 100000]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELLS = 144  # the default suite: 9 personas x 8 goals x 2 modes


def peak_mb(reps: int, out: Path) -> tuple[float, float, int]:
    """One run's (peak MB, seconds, sessions), in a child process of its own."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "simlab.cli", "run", "simlab.yaml", "--reps", str(reps)),
            *("--out", str(out), "--quiet", "--yes"),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"simlab run --reps {reps} failed ({proc.returncode}):\n{proc.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak <= before:  # RUSAGE_CHILDREN keeps the largest child so far
        sys.exit("the second run must be the larger one")
    (run_dir,) = out.iterdir()
    n = sum(1 for _ in (run_dir / "sessions.jsonl").open("rb"))
    return peak / 1024, seconds, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=10_000, help="sessions of the first run")
    parser.add_argument("--large", type=int, default=100_000, help="sessions of the second run")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, target in enumerate((args.small, args.large)):
            reps = math.ceil(target / CELLS)
            mb, seconds, n = peak_mb(reps, Path(tmp) / str(i))
            rows.append((n, mb))
            print(f"{n:>8,} sessions (--reps {reps}): peak {mb:,.0f} MB, {seconds:,.0f} s")
    (n1, m1), (n2, m2) = rows
    print(f"ratio of peaks: {m2 / m1:.2f} for {n2 / n1:.1f}x the sessions (bound: 1.5)")


if __name__ == "__main__":
    main()

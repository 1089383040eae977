"""Instructions per agent turn of the offline engine, by valgrind's cachegrind.

The machine is shared, so CPU-seconds move by half between hours; the count of
instructions does not (about 1% between runs of the same code). This runs
``engine_throughput.py --json`` under cachegrind at two sizes of the suite and
prints the slope, so start-up costs (imports, loading, the first session's
templates) cancel; a run outside valgrind first writes the bytecode caches:

    python bench/instructions_per_turn.py [--suite simlab.yaml] [--small 1] [--large 5]

Needs ``valgrind`` on the PATH (Debian: ``apt-get install valgrind``); the code
measured is the one ``python`` imports (set ``PYTHONPATH`` to measure a worktree).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def count(suite: Path, reps: int) -> tuple[int, int]:
    """(instructions, agent turns) of one run of ``suite`` at ``reps``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={out}",
                sys.executable,
                str(ROOT / "bench" / "engine_throughput.py"),
                "--json",
                "--reps",
                str(reps),
                "--suite",
                str(suite),
            ],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
        if found is None:
            raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
        turns = json.loads(run.stdout.strip().splitlines()[-1])["agent_turns"]
        return int(found.group(1).replace(",", "")), turns


def warm_up(suite: Path) -> None:
    """One run outside valgrind, so every module's bytecode cache is written before the
    counts: a module compiled during the first count only (a changed file, a fresh
    tree) made that count larger and the slope about 5% smaller."""
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "engine_throughput.py"), "--json", "--reps", "1",
         "--suite", str(suite)],
        check=True,
        capture_output=True,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", type=Path, default=ROOT / "simlab.yaml")
    parser.add_argument("--small", type=int, default=1)
    parser.add_argument("--large", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    warm_up(args.suite)
    (i1, t1), (i2, t2) = count(args.suite, args.small), count(args.suite, args.large)
    per_turn = (i2 - i1) / (t2 - t1)
    print(f"reps {args.small}: {i1:,} instructions, {t1:,} agent turns")
    print(f"reps {args.large}: {i2:,} instructions, {t2:,} agent turns")
    print(f"per agent turn (slope): {per_turn / 1000:,.1f}k instructions")
    print(f"start-up (intercept):   {(i1 - per_turn * t1) / 1e9:,.2f}G instructions")


if __name__ == "__main__":
    main()

"""Do two versions of simlab write the same sessions? The check for speed work.

Exports a git ref (by default the merge base with ``main``) with ``git archive``
into a temporary folder, runs a suite (by default the default suite) with that
code and with the working tree's, each in its own ``python -m simlab run``
subprocess, and compares the two ``sessions.jsonl`` line by line with
``duration_s`` and ``agent_turn_s`` (wall times, never reproducible) removed. Exit 0 when they are
byte-identical otherwise, 1 with the first differing keys when not.

    python bench/same_sessions.py [--against REF] [--suite simlab.yaml] [--reps N]
                                  [--seed S]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def export(ref: str, into: Path) -> Path:
    """The tree of ``ref`` written under ``into`` (no checkout, no worktree)."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_suite(code: Path, suite: Path, out: Path, extra: list[str]) -> Path:
    """Run ``suite`` with the simlab package found in ``code``; its sessions.jsonl."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    subprocess.run(
        [sys.executable, "-m", "simlab", "run", str(suite), "--out", str(out), "--quiet", *extra],
        check=True,
        env=env,
        cwd=code,
        capture_output=True,
    )
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir / "sessions.jsonl"


def normalised(path: Path) -> list[str]:
    """The file's lines with the wall times (``duration_s``, ``agent_turn_s``) removed."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("duration_s", None)
        record.pop("agent_turn_s", None)  # per-turn latency: wall time too
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=False))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", default=None, help="git ref (default: merge base with main)")
    parser.add_argument("--suite", default="simlab.yaml", help="suite path inside both trees")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    ref = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", args.against or "main"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if args.against is None:
        ref = subprocess.run(
            ["git", "-C", str(ROOT), "merge-base", "HEAD", ref],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    extra = [*(["--reps", str(args.reps)] if args.reps else [])]
    extra += ["--seed", str(args.seed)] if args.seed is not None else []
    with tempfile.TemporaryDirectory() as tmp:
        base = export(ref, Path(tmp) / "ref")
        before = normalised(run_suite(base, base / args.suite, Path(tmp) / "a", extra))
        after = normalised(run_suite(ROOT, ROOT / args.suite, Path(tmp) / "b", extra))
    differing = [i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
    print(f"reference {ref[:12]}: {len(before)} sessions; working tree: {len(after)} sessions")
    if len(before) == len(after) and not differing:
        print("sessions.jsonl identical (duration_s aside)")
        return 0
    if sorted(before) == sorted(after):
        # lines are written as sessions finish: an agent that waits (a thread, a socket)
        # lets sessions finish in another order from one run to the next
        print("the same records, in another order (duration_s aside)")
        return 0
    for i in differing[:5]:
        print(f"line {i + 1} differs: {json.loads(before[i])['key']}")
    print(f"{len(differing)} lines differ; line counts {len(before)} vs {len(after)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

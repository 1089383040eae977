"""Do two versions of simlab write the same sessions? The check for speed work.

Exports a git ref (by default the merge base with ``main``) with ``git archive``
into a temporary folder, runs a suite (by default the default suite) with that
code and with the working tree's, each in its own ``python -m simlab run``
subprocess, and compares the two ``sessions.jsonl`` line by line with
``duration_s`` and ``agent_turn_s`` (wall times, never reproducible) removed. Exit 0 when they are
byte-identical otherwise, 1 with the first differing keys when not. ``--ignore-meta KEY``
(repeatable) also removes ``meta[KEY]`` from both sides, for a change that adds a meta
entry on purpose; how many records of each side held it is printed.

    python bench/same_sessions.py [--against REF] [--suite simlab.yaml] [--reps N]
                                  [--seed S] [--ignore-meta unheard]
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
from collections.abc import Sequence
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


def normalised(path: Path, ignore_meta: Sequence[str] = ()) -> tuple[list[str], dict[str, int]]:
    """The file's lines with the wall times (``duration_s``, ``agent_turn_s``) and the
    ``ignore_meta`` entries of ``meta`` removed; how many records held each of those."""
    lines = []
    held = dict.fromkeys(ignore_meta, 0)
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("duration_s", None)
        record.pop("agent_turn_s", None)  # per-turn latency: wall time too
        meta = record.get("meta") or {}
        for key in ignore_meta:
            if meta.pop(key, None) is not None:
                held[key] += 1
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=False))
    return lines, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", default=None, help="git ref (default: merge base with main)")
    parser.add_argument("--suite", default="simlab.yaml", help="suite path inside both trees")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--ignore-meta",
        action="append",
        default=[],
        metavar="KEY",
        help="leave meta[KEY] out of the comparison (repeatable): a meta entry added on purpose",
    )
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
        ran = run_suite(base, base / args.suite, Path(tmp) / "a", extra)
        before, held_before = normalised(ran, args.ignore_meta)
        ran = run_suite(ROOT, ROOT / args.suite, Path(tmp) / "b", extra)
        after, held_after = normalised(ran, args.ignore_meta)
    differing = [i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
    print(f"reference {ref[:12]}: {len(before)} sessions; working tree: {len(after)} sessions")
    for key in args.ignore_meta:
        print(
            f"meta.{key} left out: held by {held_before[key]} reference records, "
            f"{held_after[key]} working-tree records"
        )
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

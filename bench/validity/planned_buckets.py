"""Planned-length buckets on the default suite: how sessions spread, and v1/v2 by plan.

Runs the default suite (``simlab.yaml``) against ``reference:v1`` and
``reference:v2`` with the same seed, then prints, from the runs'
``sessions.jsonl`` alone:

* how many sessions each planned length and each planned bucket holds (by mode);
* each version's pass rate per planned bucket with n and a Wilson 95% interval,
  overall and within sharded sessions, next to the realised-length table
  (which depends on the outcome);
* how many keys have another planned length in v1 than in v2 (must be 0);
* the same figures under other bucket edges (``--alt``), recomputed with
  ``simlab.report.summarize`` from the same records.

    python bench/validity/planned_buckets.py [--seed N] [--alt 2-3,4-6,7+] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from _default_suite import default_suite_copy  # beside this script

from simlab.report import summarize
from simlab.spec import Suite
from simlab.stats import wilson_interval
from simlab.store import SessionRecord, read_sessions

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ("v1", "v2")


def run_version(out: Path, version: str, seed: int | None) -> Path:
    """Run the default suite against ``reference:<version>``; the run directory."""
    suite = default_suite_copy(out / f"{version}.yaml", target=f"reference:{version}")
    args = [sys.executable, "-m", "simlab.cli", "run", str(suite), "--quiet"]
    args += ["--out", str(out / version)] + (["--seed", str(seed)] if seed is not None else [])
    subprocess.run(args, check=True, capture_output=True)
    (run_dir,) = list((out / version).iterdir())
    return run_dir


def rate_line(name: str, passes: int, n: int) -> str:
    if n == 0:
        return f"  {name:>10}  n=0"
    lo, hi = wilson_interval(passes, n)
    return (
        f"  {name:>10}  n={n:<4} {passes:>4}/{n:<4} {100 * passes / n:5.1f}% "
        f"[{100 * lo:.1f}, {100 * hi:.1f}]"
    )


def bucket_table(title: str, rows: dict[str, Any]) -> None:
    print(title)
    for name, r in rows.items():
        print(rate_line(name, r["passes"], r["n"]))


def sharded_by_bucket(records: list[SessionRecord], summary: dict[str, Any]) -> None:
    edges = summary["buckets"]
    by: dict[str, list[bool]] = {}
    for r in records:
        if r.key.mode != "sharded" or r.status != "ok" or r.planned_turns is None:
            continue
        name = next(
            (
                b["name"]
                for b in edges
                if b["min"] <= r.planned_turns and (b["max"] is None or r.planned_turns <= b["max"])
            ),
            "other",
        )
        by.setdefault(name, []).append(r.passed is True)
    print("  within sharded sessions:")
    for b in edges:
        outcomes = by.get(b["name"], [])
        print(rate_line(b["name"], sum(outcomes), len(outcomes)))


def report(run_dirs: dict[str, Path], alt: list[str]) -> None:
    records = {v: read_sessions(d).records for v, d in run_dirs.items()}
    v1 = records["v1"]
    print("planned length (user turns the plan needs) -> sessions, by mode:")
    counts = Counter((r.planned_turns, r.key.mode) for r in v1)
    for turns in sorted({t for t, _ in counts}, key=lambda t: -1 if t is None else t):
        full, sharded = counts[(turns, "full")], counts[(turns, "sharded")]
        print(f"  {turns!s:>4}: {full + sharded:4}  (full {full}, sharded {sharded})")
    planned = {v: {r.key: r.planned_turns for r in recs} for v, recs in records.items()}
    moved = sum(1 for k, t in planned["v1"].items() if planned["v2"].get(k) != t)
    print(f"keys with another planned length in v2 than in v1: {moved} of {len(planned['v1'])}")
    for edges in (None, alt):
        buckets = Suite().buckets if edges is None else Suite(buckets=edges).buckets
        label = ", ".join(b.name for b in buckets)
        print(f"\n=== bucket edges {label}" + (" (the default)" if edges is None else ""))
        for version in VERSIONS:
            recs = records[version]
            summary = summarize(recs, buckets, seed=0, n_resamples=10)
            print(f"\n{version} ({run_dirs[version].name}):")
            bucket_table("  by planned length:", summary["by_bucket"])
            sharded_by_bucket(recs, summary)
            bucket_table(
                "  by realised length (depends on the outcome; not a cause):",
                summary["by_realised_length"],
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="run seed (default: the suite's)")
    parser.add_argument("--alt", default="2-3,4-6,7+", help="other bucket edges to show")
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here")
    args = parser.parse_args(argv)
    alt = [e.strip() for e in args.alt.split(",") if e.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        run_dirs = {v: run_version(out, v, args.seed) for v in VERSIONS}
        report(run_dirs, alt)
        if args.out is not None:
            print(json.dumps({v: str(d) for v, d in run_dirs.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

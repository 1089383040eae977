"""False alarms of ``simlab compare`` between runs of one agent with different seeds.

Runs the default suite (reference:v1) once per seed and compares disjoint pairs
of runs (seeds S and S + 1): the agent is the same, so every alarm is false.
A pair raises an alarm when it fails a shipped gate (``examples/ci/gates.yaml``),
raises the Simpson's-paradox warning, or reports a Holm-adjusted p < 0.05
anywhere. For contrast, the same pairs under the rules the comparison had
before: a raw p < 0.05 anywhere, a Simpson warning from point estimates.

    python bench/validity/compare_false_alarms.py              # 40 pairs, ~7 min
    python bench/validity/compare_false_alarms.py --pairs 8 --reps 2

Runs are kept in ``--work`` (default ``results/validity-false-alarms``) and
reused, so a second call only re-compares.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from simlab.compare import (
    compare_runs,
    evaluate_gates,
    load_gates,
    load_run,
    simpson_check,
)
from simlab.stats import wilson_interval

REPO = Path(__file__).resolve().parents[2]
GATES = REPO / "examples" / "ci" / "gates.yaml"
FIRST_SEED = 1000


@dataclass(frozen=True)
class PairAlarms:
    """What one same-agent pair of runs reported."""

    seeds: tuple[int, int]
    gate: bool
    simpson: bool
    adjusted_p: bool
    raw_p: bool
    point_simpson: bool
    regressions: int
    inconclusive: int

    @property
    def any(self) -> bool:
        """An alarm under the shipped rules."""
        return self.gate or self.simpson or self.adjusted_p


def run_dir(work: Path, seed: int, reps: int) -> Path:
    """The run of the default suite with this seed (run once, then reused)."""
    out = work / f"reps{reps}-seed{seed}"
    done = [p for p in out.glob("*") if (p / "summary.json").exists()]
    if done:
        return done[0]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [sys.executable, "-m", "simlab.cli", "run", str(REPO / "simlab.yaml")]
    cmd += ["--seed", str(seed), "--reps", str(reps), "--out", str(out), "--quiet"]
    subprocess.run(cmd, check=True, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    return next(p for p in out.glob("*") if (p / "summary.json").exists())


def alarms(a_dir: Path, b_dir: Path, seeds: tuple[int, int], gates: Path) -> PairAlarms:
    """Compare two runs and read off every alarm."""
    c = compare_runs(load_run(a_dir), load_run(b_dir))
    results = evaluate_gates(c, load_gates(gates))
    tests = [c.overall.test, *(g.test for g in c.by_bucket), *(g.test for g in c.by_persona)]
    raw = [t.p_value for t in tests if t is not None]
    raw += [g.mcnemar.p_value for g in c.by_bucket if g.paired.n]
    # the old Simpson rule: an opposite point estimate was enough
    points = {g.name: (g.delta, g.delta) if g.delta is not None else None for g in c.by_bucket}
    old = simpson_check(
        {g.name: (g.a.passed, g.a.n) for g in c.by_bucket},
        {g.name: (g.b.passed, g.b.n) for g in c.by_bucket},
        [g.name for g in c.by_bucket],
        points,
    )
    return PairAlarms(
        seeds,
        any(r.status == "failed" for r in results),
        c.simpson.warn,
        any(p < 0.05 for p in c.p_adjusted.values()),
        any(p < 0.05 for p in raw),
        old.warn,
        len(c.regressions),
        sum(r.status == "inconclusive" for r in results),
    )


def _share(k: int, n: int) -> str:
    lo, hi = wilson_interval(k, n)
    return f"{k:3d}/{n} = {k / n:6.1%}  [{lo:6.1%}, {hi:6.1%}]"


def report(rows: list[PairAlarms]) -> str:
    """The table of alarm rates with Wilson 95% intervals."""
    n = len(rows)
    counted = [
        ("fails a shipped gate (examples/ci/gates.yaml)", sum(r.gate for r in rows)),
        ("Simpson warning (interval-supported)", sum(r.simpson for r in rows)),
        ("a Holm-adjusted p < 0.05", sum(r.adjusted_p for r in rows)),
        ("ANY OF THE ABOVE (the false-alarm rate)", sum(r.any for r in rows)),
        ("for contrast, the rules before:", None),
        ("  a raw p < 0.05 anywhere", sum(r.raw_p for r in rows)),
        ("  Simpson warning from point estimates", sum(r.point_simpson for r in rows)),
    ]
    lines = [
        f"Same-agent pairs of default-suite runs (reference:v1), different seeds: n = {n} pairs",
        f"{'alarm':<52} {'pairs':>10}   rate, Wilson 95% interval",
    ]
    lines += [label if k is None else f"{label:<52} {_share(k, n)}" for label, k in counted]
    lines.append(
        f"regressions listed: {sum(r.regressions for r in rows)} over all pairs "
        f"(keys are not paired across seeds); gates inconclusive for lack of sessions: "
        f"{sum(r.inconclusive for r in rows)} over all pairs"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the simulation and print its table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pairs", type=int, default=40)
    p.add_argument("--reps", type=int, default=8, help="repetitions per cell (the suite's 8)")
    p.add_argument("--work", type=Path, default=REPO / "results" / "validity-false-alarms")
    p.add_argument("--gates", type=Path, default=GATES, help="gates file (the shipped one)")
    args = p.parse_args(argv)
    rows = []
    for i in range(args.pairs):
        seeds = (FIRST_SEED + 2 * i, FIRST_SEED + 2 * i + 1)
        a, b = (run_dir(args.work, s, args.reps) for s in seeds)
        rows.append(alarms(a, b, seeds, args.gates))
        r = rows[-1]
        flags = [
            name
            for name, on in [("gate", r.gate), ("simpson", r.simpson), ("adjusted p", r.adjusted_p)]
            if on
        ]
        print(f"pair {i + 1:3d} seeds {seeds}: {', '.join(flags) or 'no alarm'}", flush=True)
    print()
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

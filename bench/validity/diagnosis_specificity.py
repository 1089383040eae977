"""Is a verified diagnosis specific, and how good is the diagnosis without a peek inside?

Runs the default suite (``simlab.yaml``, the reference agent v1) with a few
seeds, diagnoses each run (``simlab diagnose``: every counterfactual replay
on every failure), and prints, per seed and pooled over the seeds:

* the **false verification rate** per cause: of the failures whose hidden true
  cause is another one, the share this cause's verification rule verifies
  (with n and a Wilson 95% interval), beside the share of its own true cause
  it verifies; and the same figures for the one-turn replay alone (the old,
  non-specific verification of anchoring);
* the diagnosis's **agreement with the hidden truth**, reading the agent's
  self-reported view and as a **black box** (view and meta withheld): raw
  accuracy beside always naming the commonest cause, Cohen's kappa and
  balanced accuracy, each with n and a 95% interval;
* how many first failures are **drift**.

    python bench/validity/diagnosis_specificity.py [--seeds 3] [--reps 8] [--work DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from _default_suite import default_suite_copy  # beside this script

from simlab.diagnose import diagnose_run
from simlab.stats import agreement, wilson_interval
from simlab.store import CAUSES, Cause, DiagnosisReport

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SEED = 20261129
VERIFIABLE = (Cause.TRUNCATION, Cause.ANCHORING, Cause.DRIFT, Cause.SINGLE_TURN)


def run_default_suite(work: Path, seed: int, reps: int) -> Path:
    """Run the default suite with ``seed``; its run directory."""
    suite = default_suite_copy(work / f"suite-{seed}.yaml", reps=reps)
    out = work / f"seed-{seed}"
    args = [sys.executable, "-m", "simlab.cli", "run", str(suite), "--quiet"]
    args += ["--out", str(out), "--seed", str(seed)]
    subprocess.run(args, check=True, capture_output=True)
    (run_dir,) = list(out.iterdir())
    return run_dir


def share(k: int, n: int) -> str:
    """``k/n = p% [lo, hi]`` with the Wilson 95% interval."""
    if n == 0:
        return f"{k}/{n}"
    lo, hi = wilson_interval(k, n)
    return f"{k:>4}/{n:<5} = {100 * k / n:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def tally(report: DiagnosisReport, counts: Counter[tuple[str, str, str]]) -> None:
    """Add the report's per-cause verification counts to ``counts``."""
    for row in report.false_verification:
        c = row.cause.value
        counts[(c, "false", "k")] += row.false.k
        counts[(c, "false", "n")] += row.false.n
        counts[(c, "true", "k")] += row.true.k
        counts[(c, "true", "n")] += row.true.n
    for s in report.sessions:
        if s.true_cause is None or s.verification is None or "one_turn" not in s.verification.fixed:
            continue
        side = "true" if s.true_cause.cause is Cause.ANCHORING else "false"
        counts[("one_turn alone", side, "k")] += bool(s.verification.fixed["one_turn"])
        counts[("one_turn alone", side, "n")] += 1


def print_verification(title: str, counts: Counter[tuple[str, str, str]]) -> None:
    """The false and true verification table."""
    print(f"\n{title}")
    print(f"  {'rule':<16} {'false verification (other true cause)':<42} own true cause verified")
    all_k = all_n = 0
    for cause in [c.value for c in VERIFIABLE] + ["one_turn alone"]:
        fk, fn = counts[(cause, "false", "k")], counts[(cause, "false", "n")]
        tk, tn = counts[(cause, "true", "k")], counts[(cause, "true", "n")]
        print(f"  {cause:<16} {share(fk, fn):<42} {share(tk, tn)}")
        if cause != "one_turn alone":
            all_k, all_n = all_k + fk, all_n + fn
    print(f"  {'ALL (specific)':<16} {share(all_k, all_n)}")


def print_agreement(title: str, truth: list[Cause], named: list[Cause]) -> None:
    """Raw accuracy, the commonest-cause baseline, kappa and balanced accuracy."""
    a = agreement(truth, named, labels=list(CAUSES))
    hits = sum(1 for t, c in zip(truth, named, strict=True) if t is c)
    commonest = max(truth.count(c) for c in CAUSES) if truth else 0
    kappa = f"{a.kappa:.3f} [{a.kappa_ci[0]:.3f}, {a.kappa_ci[1]:.3f}]" if a.kappa_ci else "-"
    bal = a.balanced_accuracy
    balanced = (
        f"{bal:.3f} [{a.balanced_ci[0]:.3f}, {a.balanced_ci[1]:.3f}]" if a.balanced_ci else "-"
    )
    print(f"  {title:<12} n={a.n:<5} accuracy {share(hits, a.n)}")
    print(f"  {'':<12} always the commonest cause {share(commonest, a.n)}")
    print(f"  {'':<12} Cohen's kappa {kappa}; balanced accuracy {balanced}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="runs, from the suite's seed on")
    parser.add_argument("--reps", type=int, default=8, help="repetitions per cell")
    parser.add_argument("--work", type=Path, default=None, help="where runs are written")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="simlab-diag-"))
    work.mkdir(parents=True, exist_ok=True)
    pooled: Counter[tuple[str, str, str]] = Counter()
    truth: list[Cause] = []
    named: list[Cause] = []
    black: list[Cause] = []
    drift = Counter[str]()
    for i in range(args.seeds):
        seed = DEFAULT_SEED + i
        report = diagnose_run(run_default_suite(work, seed, args.reps), write=False)
        counts: Counter[tuple[str, str, str]] = Counter()
        tally(report, counts)
        pooled.update(counts)
        print_verification(
            f"seed {seed}: {report.n_failed} failures of {report.n_sessions} sessions", counts
        )
        t = [s.true_cause.cause for s in report.sessions if s.true_cause is not None]
        n = [s.cause for s in report.sessions if s.true_cause is not None]
        b = [s.black_box_cause or Cause.UNKNOWN for s in report.sessions if s.true_cause]
        truth += t
        named += n
        black += b
        drift["diagnosed"] += sum(1 for s in report.sessions if s.cause is Cause.DRIFT)
        drift["true"] += t.count(Cause.DRIFT)
        print_agreement("view", t, n)
        print_agreement("black box", t, b)
        print(
            f"  drift first failures: diagnosed {sum(1 for c in n if c is Cause.DRIFT)}, "
            f"true {t.count(Cause.DRIFT)}"
        )
    print_verification(f"POOLED over {args.seeds} seeds", pooled)
    print_agreement("view", truth, named)
    print_agreement("black box", truth, black)
    print(f"  drift first failures: diagnosed {drift['diagnosed']}, true {drift['true']}")


if __name__ == "__main__":
    main()

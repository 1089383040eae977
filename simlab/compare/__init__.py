"""Release comparison: ``simlab compare RUN_A RUN_B`` (A the baseline, B the candidate).

What each figure means (every change is B - A):

* **Pairing.** Sessions match by key (persona, goal, mode, rep, perturbations);
  a key repeated in one run keeps its first record, as resume does. Only keys
  graded (``ok``) in both runs *with the same session seed and user-side
  settings* are pairs: under another seed the same key is another, independent
  conversation, so runs with different seeds are compared as independent
  samples (no McNemar, no paired interval, no per-session regressions). Error
  sessions are listed apart and never count as passes or failures; unpaired
  keys are counted.
* **Per-run rates** (the bucket, persona and overall tables, the gates and the
  Simpson check) use every graded session of each run, each in the length
  bucket of its *planned* length (the user turns its plan needs, fixed before
  it ran; never its realised length, which depends on the outcome); bucket
  edges come from A's ``run.json``. Each
  rate has its n and a Wilson interval; the change has Newcombe's
  hybrid-score interval (Newcombe 1998, method 10), paired (1998b, method
  10) when the group holds the same keys (same seeds) in both runs, for independent
  samples when it holds no key in both, and otherwise with the pairs'
  correlation scaled by their share (``IntervalKind``). So a run compared
  with itself has a narrow interval: it passes a 5-point drop gate from 82
  sessions in a bucket, a 3-point one from 139. Runs with different seeds
  need far more (``Gates``).
* **Paired figures** use the pairs (keys with the same seed in both runs),
  each in the bucket it is planned in in both runs; ``bucket_moves`` counts
  the pairs planned in two buckets (none for runs of one suite and seed),
  which count in the overall row only. The
  change is (fixed - regressed) / pairs with Newcombe's paired interval
  (1998b, method 10); McNemar's exact test on regressed vs fixed.
* **Aptitude and unreliability** per cell (persona, goal, mode,
  perturbations) graded in both runs, B - A per cell, then the mean over
  cells with a seeded percentile bootstrap over cells (no interval from a
  single cell).
* **Checks**: each check either run graded (the built-in ones and a suite's
  own graders), its pass rate over the graded sessions that carry it, with the
  same intervals and tests as a persona's row: where a change comes from.
* **Tests and multiplicity.** Each bucket, persona, check and overall row has a test
  of "no change" matching its interval (McNemar exact when paired, Fisher
  exact when independent, the partly paired interval's p-value otherwise);
  every p-value printed is shown raw and Holm-adjusted over one family; a
  group where a run has no sessions has no test ("no sessions") and no place
  in the family.
* **Simpson's paradox** warning: the overall change lies outside the range
  of the per-bucket changes (impossible with an unchanged mix) and at least
  one bucket moved the other way with an interval excluding 0 on that side;
  the mix shift (each bucket's share of sessions in A and B) and the change
  at A's mix are shown.
* **Regressions**: paired keys that passed in A and failed in B, with their
  line in B's ``sessions.jsonl`` and anchor in B's ``report.html``; none are
  listed between runs with different seeds (``NOT_PAIRED_MESSAGE``).
* **New safety violation**: on a pair, a check whose name starts with
  ``safety:`` or ``canary`` that passed in A and failed in B.
* **Gates** (``Gates``; YAML with ``--gates``): exit 1 when one fails; a drop
  gate too weak at the group's n to tell no change from its limit is
  inconclusive and says the sessions it needs.
* **Repetitions**: a warning when the runs differ in repetitions per cell.
"""

from simlab.compare._analysis import (
    MIN_BOOTSTRAP_CELLS,
    NOT_PAIRED_MESSAGE,
    SAFETY_PREFIXES,
    Comparison,
    GroupComparison,
    IntervalKind,
    Rate,
    Regression,
    RowTest,
    SafetyViolation,
    SpreadDelta,
    compare_runs,
    derived_seed,
    is_safety_check,
    spread_delta,
)

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.compare._cli import cli_main as cli_main
from simlab.compare._gates import GateResult, Gates, GateStatus, evaluate_gates, load_gates
from simlab.compare._junit import render_junit
from simlab.compare._markdown import render_markdown, verdict
from simlab.compare._pairing import (
    ErrorSession,
    LocatedRecord,
    Pairing,
    RunSessions,
    load_run,
    pair_sessions,
)
from simlab.compare._simpson import BucketShift, SimpsonCheck, simpson_check
from simlab.compare._terminal import render_terminal
from simlab.compare._trajectory import TrajectoryDelta, trajectory_deltas
from simlab.stats import (
    PairedTable,
    newcombe_interval,
    overlap_newcombe_interval,
    overlap_newcombe_p_value,
    paired_newcombe_interval,
)

__all__ = [
    "MIN_BOOTSTRAP_CELLS",
    "NOT_PAIRED_MESSAGE",
    "SAFETY_PREFIXES",
    "BucketShift",
    "Comparison",
    "ErrorSession",
    "GateResult",
    "GateStatus",
    "Gates",
    "GroupComparison",
    "IntervalKind",
    "LocatedRecord",
    "PairedTable",
    "Pairing",
    "Rate",
    "Regression",
    "RowTest",
    "RunSessions",
    "SafetyViolation",
    "SimpsonCheck",
    "SpreadDelta",
    "TrajectoryDelta",
    "compare_runs",
    "derived_seed",
    "evaluate_gates",
    "is_safety_check",
    "load_gates",
    "load_run",
    "newcombe_interval",
    "overlap_newcombe_interval",
    "overlap_newcombe_p_value",
    "pair_sessions",
    "paired_newcombe_interval",
    "render_junit",
    "render_markdown",
    "render_terminal",
    "simpson_check",
    "spread_delta",
    "trajectory_deltas",
    "verdict",
]

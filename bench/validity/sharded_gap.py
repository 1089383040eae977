"""Does sharding cost mean score more than aptitude? Per domain and persona group.

Reads a finished run (``sessions.jsonl``) and the suite it ran, pairs each sharded
cell with the full cell of the same persona, goal and perturbations, and prints per
domain, for all personas and for those who seldom change their minds
(``change_mind < 0.5``): the paired sharded − full change in mean score, in aptitude
(P90) and their difference, aptitude's change minus the mean's. "Sharded's aptitude
drops much less than its mean" is that difference above 0, with its interval. Each
figure has a two-level bootstrap interval (cell pairs, then repetitions within each
cell), the same resampling as the report's "Full vs sharded" table, whose first two
figures it reproduces for the whole run.

    simlab run examples/bank/reference.yaml --out results/gap
    python bench/validity/sharded_gap.py results/gap/<run> --suite examples/bank/reference.yaml
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from simlab.spec import load_goals, load_personas, load_suite
from simlab.stats import score_differences, two_level_bootstrap

MIND_CHANGER = 0.5
Pair = list[list[float]]


def gap_statistics(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Per pair of cells (full, sharded): change in mean, in aptitude, and their difference."""
    d = score_differences(parts)
    return np.column_stack([d[:, 0], d[:, 1], d[:, 1] - d[:, 0]])


def paired_cells(run: Path, suite_path: Path) -> dict[tuple[str, str], list[Pair]]:
    """(domain, group) -> the [full scores, sharded scores] of each paired cell."""
    suite = load_suite(suite_path)
    base = suite_path.resolve().parent
    personas = load_personas([base / d for d in suite.persona_dirs])
    goals = load_goals([base / d for d in suite.goal_dirs])
    scores: dict[tuple[str, str, str, tuple[str, ...]], list[float]] = defaultdict(list)
    with (run / "sessions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["status"] != "ok" or rec["score"] is None:
                continue
            k = rec["key"]
            cell = (k["persona"], k["goal"], k["mode"], tuple(k["perturbations"]))
            scores[cell].append(float(rec["score"]))
    out: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for (persona, goal, mode, pert), sharded in sorted(scores.items()):
        full = scores.get((persona, goal, "full", pert))
        if mode != "sharded" or full is None:
            continue
        pair = [sorted(full), sorted(sharded)]
        domain = goals[goal].domain
        out[(domain, "all")].append(pair)
        if personas[persona].traits.change_mind < MIND_CHANGER:
            out[(domain, "steady")].append(pair)
    return out


def main() -> None:
    """Print the table for one run."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path, help="a run directory")
    ap.add_argument("--suite", type=Path, required=True, help="the suite the run ran")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    args = ap.parse_args()
    print("sharded - full, paired by cell; 95% two-level bootstrap intervals")
    for (domain, group), pairs in sorted(paired_cells(args.run, args.suite).items()):
        if len(pairs) < 2:
            print(f"{domain:10} {group:6} {len(pairs)} cell pair: no interval")
            continue
        mean, apt, gap = two_level_bootstrap(
            pairs, gap_statistics, args.seed, args.resamples, 0.95, (-200.0, 200.0)
        )
        shown = "  ".join(
            f"{name} {s.estimate:+6.1f} [{s.ci[0]:+6.1f}, {s.ci[1]:+6.1f}]"
            for name, s in (("mean", mean), ("aptitude", apt), ("aptitude - mean", gap))
            if s.ci is not None
        )
        print(f"{domain:10} {group:6} {len(pairs):3} pairs  {shown}")


if __name__ == "__main__":
    main()

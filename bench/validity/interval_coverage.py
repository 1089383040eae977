"""Coverage of simlab's intervals by simulation: do the 95% intervals cover what they claim?

Cells are score distributions: a session passes (score 100) with the cell's
chance p, else scores around the cell's failure mean. Each replication draws R
repetitions per cell, computes the intervals exactly as ``summarize`` does
(``simlab.stats.two_level_bootstrap``), and checks them against the estimand:

* aptitude: mean over cells of the expected P90 of R repetitions' scores;
* unreliability: the same for P90 - P10;
* pass^k: mean over cells (tasks) of p^k;
* compare, aptitude change: the same aptitude estimand in run B minus run A (B's
  cells pass more often), with ``score_differences``;
* compare, pass-rate change: Newcombe's independent-samples interval (runs with
  different seeds) of the expected pass rate of B minus A.

The estimands are computed by Monte Carlo over many draws (P90 of R draws has no
closed form). Replications where every resample agreed print "no spread", not
an interval, and are counted apart.

    python bench/validity/interval_coverage.py                    # ~2 min
    python bench/validity/interval_coverage.py --cells 144 --replications 200
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from simlab.compare import newcombe_interval
from simlab.stats import (
    pass_hat_k_statistics,
    score_differences,
    score_statistics,
    two_level_bootstrap,
    wilson_interval,
)

FAIL_SD = 8.0


@dataclass(frozen=True)
class Cells:
    """A scenario: per cell, the chance to pass and the mean failing score."""

    name: str
    p: np.ndarray
    fail_mean: np.ndarray

    def draw(self, rng: np.random.Generator, n: int, reps: int) -> np.ndarray:
        """``(n, cells, reps)`` scores."""
        shape = (n, len(self.p), reps)
        passed = rng.random(shape) < self.p[None, :, None]
        fail = np.clip(rng.normal(self.fail_mean[None, :, None], FAIL_SD, shape), 0, 100)
        return np.where(passed, 100.0, fail)

    def shifted(self, by: float) -> Cells:
        """The same cells with each pass chance raised by ``by`` (capped at 1)."""
        return Cells(self.name, np.minimum(self.p + by, 1.0), self.fail_mean)


def scenarios(n_cells: int, rng: np.random.Generator) -> list[Cells]:
    """Homogeneous, heterogeneous, near-deterministic and mixed cells."""
    half = n_cells // 2
    return [
        Cells("homogeneous", np.full(n_cells, 0.7), np.full(n_cells, 40.0)),
        Cells("heterogeneous", rng.beta(1, 1, n_cells), rng.uniform(10, 60, n_cells)),
        Cells(
            "near-deterministic",
            np.r_[np.full(half, 0.97), np.full(n_cells - half, 0.9)],
            np.full(n_cells, 45.0),
        ),
        Cells(
            "mixed (half always 100)",
            np.r_[np.ones(half), rng.beta(1, 1, n_cells - half)],
            np.full(n_cells, 40.0),
        ),
    ]


@dataclass
class Tally:
    """Coverage counts of one (scenario, statistic)."""

    truth: float
    covered: int = 0
    intervals: int = 0
    no_spread: int = 0
    widths: list[float] = field(default_factory=list)

    def add(self, ci: tuple[float, float] | None, no_spread: bool) -> None:
        if no_spread or ci is None:
            self.no_spread += no_spread
            return
        self.intervals += 1
        self.covered += ci[0] - 1e-9 <= self.truth <= ci[1] + 1e-9
        self.widths.append(ci[1] - ci[0])

    def line(self, scenario: str, stat: str) -> str:
        n = self.intervals
        share = self.covered / n if n else float("nan")
        lo, hi = wilson_interval(self.covered, n) if n else (float("nan"),) * 2
        width = float(np.mean(self.widths)) if self.widths else float("nan")
        flag = "" if not n else ("  in band" if 0.93 <= share <= 0.97 else "  OUT of 93-97%")
        return (
            f"{scenario:<24} {stat:<26} {self.truth:9.3f} {n:5d} {share:7.1%} "
            f"[{lo:5.1%}, {hi:5.1%}] {self.no_spread:5d} {width:8.3f}{flag}"
        )


def _truth(stat: Callable[[np.ndarray], np.ndarray], draws: np.ndarray) -> np.ndarray:
    # draws: (n, cells, reps) -> mean over cells of E[stat of R reps], per statistic
    n, c, r = draws.shape
    values = stat(draws.reshape(n * c, r)).reshape(n, c, -1)
    result: np.ndarray = values.mean(axis=0).mean(axis=0)
    return result


def run(args: argparse.Namespace) -> list[str]:
    """Every coverage line."""
    rng = np.random.default_rng(args.seed)
    reps, k_max = args.reps, args.reps
    ks = sorted({1, 2, k_max})
    lines = []
    for cells in scenarios(args.cells, rng):
        truth_draws = cells.draw(rng, args.truth_draws, reps)
        scores_truth = _truth(lambda x: score_statistics([x]), truth_draws)
        pass_truth = [float(np.mean(cells.p**k)) for k in ks]
        b_cells = cells.shifted(0.1)
        b_draws = b_cells.draw(rng, args.truth_draws, reps)
        apt_change_truth = _truth(lambda x: score_statistics([x]), b_draws)[1] - scores_truth[1]
        rate_truth = float(np.mean(b_cells.p) - np.mean(cells.p))
        tallies = {
            "aptitude": Tally(float(scores_truth[1])),
            "unreliability": Tally(float(scores_truth[2])),
            **{f"pass^{k}": Tally(t) for k, t in zip(ks, pass_truth, strict=True)},
            "compare: aptitude change": Tally(float(apt_change_truth)),
            "compare: pass-rate change": Tally(rate_truth),
        }
        sample_a = cells.draw(rng, args.replications, reps)
        sample_b = b_cells.draw(rng, args.replications, reps)
        for i in range(args.replications):
            seed = int(rng.integers(2**63))
            a, b = sample_a[i], sample_b[i]
            units = [[sorted(cell)] for cell in a]
            _, apt, unrel = two_level_bootstrap(
                units, score_statistics, seed, args.resamples, bounds=(0.0, 100.0)
            )
            tallies["aptitude"].add(apt.ci, apt.no_spread)
            tallies["unreliability"].add(unrel.ci, unrel.no_spread)
            trials = [[sorted((cell >= 100.0).astype(float))] for cell in a]
            spreads = two_level_bootstrap(
                trials, pass_hat_k_statistics(k_max), seed, args.resamples, bounds=(0.0, 1.0)
            )
            for k in ks:
                tallies[f"pass^{k}"].add(spreads[k - 1].ci, spreads[k - 1].no_spread)
            pairs = [[sorted(ca), sorted(cb)] for ca, cb in zip(a, b, strict=True)]
            change = two_level_bootstrap(
                pairs, score_differences, seed, args.resamples, bounds=(-100.0, 100.0)
            )[1]
            tallies["compare: aptitude change"].add(change.ci, change.no_spread)
            n = a.size
            pa, pb = int((a >= 100.0).sum()), int((b >= 100.0).sum())
            tallies["compare: pass-rate change"].add(newcombe_interval(pa, n, pb, n), False)
        lines += [t.line(cells.name, stat) for stat, t in tallies.items()]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the simulation and print the coverage table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cells", type=int, default=12, help="cells per group (a persona: 12)")
    p.add_argument("--reps", type=int, default=8, help="repetitions per cell (R)")
    p.add_argument("--replications", type=int, default=400)
    p.add_argument("--resamples", type=int, default=2000)
    p.add_argument("--truth-draws", type=int, default=20000)
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    print(
        f"Coverage of 95% intervals: {args.cells} cells x R={args.reps} repetitions, "
        f"{args.replications} replications, {args.resamples} bootstrap resamples"
    )
    print(
        f"{'scenario':<24} {'figure':<26} {'estimand':>9} {'n':>5} {'covered':>7} "
        f"{'Wilson 95%':>16} {'no-sp':>5} {'width':>8}"
    )
    for line in run(args):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

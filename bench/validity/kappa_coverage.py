"""Coverage of Cohen's kappa interval by simulation (``simlab.stats.kappa_from_table``).

Two raters label n items pass/fail; each replication draws the 2x2 table of
their labels from a multinomial with known cell probabilities, hence a known
kappa, and checks whether the 95% interval covers it. The table shows, per
true kappa and n, the coverage of simlab's interval (Wilson interval of the
observed agreement mapped through kappa's formula) beside the Wald interval
with the Fleiss-Cohen-Everitt standard error, for contrast.

    python bench/validity/kappa_coverage.py                   # ~20 s
    python bench/validity/kappa_coverage.py --replications 4000 --n 30 50 100 200
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from simlab.stats import kappa_from_table, wilson_interval

# (p(both pass), p(first pass, second fail), p(first fail, second pass), p(both fail))
TABLES: tuple[tuple[float, float, float, float], ...] = (
    (0.30, 0.20, 0.20, 0.30),
    (0.40, 0.10, 0.20, 0.30),
    (0.55, 0.05, 0.10, 0.30),
    (0.35, 0.05, 0.05, 0.55),
    (0.70, 0.10, 0.10, 0.10),
    (0.80, 0.05, 0.05, 0.10),
    (0.45, 0.02, 0.03, 0.50),
    (0.85, 0.03, 0.02, 0.10),
    (0.60, 0.01, 0.01, 0.38),
)


def true_kappa(p: tuple[float, float, float, float]) -> float:
    """Kappa of the population table ``p``."""
    a, b, c, d = p
    p_o = a + d
    p_e = (a + b) * (a + c) + (c + d) * (b + d)
    return (p_o - p_e) / (1.0 - p_e)


def fce_wald(t: list[list[int]], z: float = 1.959964) -> tuple[float, float] | None:
    """The Wald interval with the Fleiss-Cohen-Everitt (1969) standard error."""
    n = sum(map(sum, t))
    p = [[x / n for x in row] for row in t]
    rows = [sum(r) for r in p]
    cols = [p[0][j] + p[1][j] for j in range(2)]
    p_o = p[0][0] + p[1][1]
    p_e = rows[0] * cols[0] + rows[1] * cols[1]
    if p_e >= 1.0:
        return None
    k = (p_o - p_e) / (1.0 - p_e)
    same = sum(p[i][i] * (1 - (rows[i] + cols[i]) * (1 - k)) ** 2 for i in range(2))
    cross = sum(p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(2) for j in range(2) if i != j)
    var = (same + (1 - k) ** 2 * cross - (k - p_e * (1 - k)) ** 2) / (n * (1 - p_e) ** 2)
    se = math.sqrt(max(var, 0.0))
    return k - z * se, k + z * se


def main() -> None:
    """Print the coverage table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--n", type=int, nargs="+", default=[30, 50, 100])
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{'kappa':>6} {'n':>4} {'simlab':>8} {'FCE Wald':>9} {'undefined':>9}")
    worst = 1.0
    for p in TABLES:
        kappa = true_kappa(p)
        for n in args.n:
            ours = wald = undefined = 0
            for a, b, c, d in rng.multinomial(n, p, args.replications):
                t = [[int(a), int(b)], [int(c), int(d)]]
                k = kappa_from_table(t)
                if k.kappa is None:
                    undefined += 1
                    continue
                ours += k.ci[0] <= kappa <= k.ci[1]
                w = fce_wald(t)
                wald += w is not None and w[0] <= kappa <= w[1]
            share = ours / args.replications
            worst = min(worst, share)
            print(
                f"{kappa:6.3f} {n:4d} {share:8.3f} {wald / args.replications:9.3f} {undefined:9d}"
            )
    lo, hi = wilson_interval(round(worst * args.replications), args.replications)
    print(
        f"lowest coverage of simlab's interval: {worst:.3f} [{lo:.3f}, {hi:.3f}] "
        f"(Wilson, {args.replications} replications; undefined samples count as misses)"
    )


if __name__ == "__main__":
    main()

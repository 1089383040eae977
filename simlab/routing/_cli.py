"""``simlab routing RUN_A RUN_B ...``: what per-step model routing would cost and risk."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from simlab.routing._analysis import RoutingError, analyse_routing
from simlab.routing._render import render_routing
from simlab.store import RunDirError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="simlab routing",
        description="From runs of one suite on several agent models: the step x model "
        "first-failure matrix, the cheapest model per step within a failure budget, and "
        "what the first run's sessions would cost routed per turn, sticky, or sticky with "
        "escalation (prompt-cache reads priced, a model switch breaking the cache).",
    )
    p.add_argument("runs", type=Path, nargs="+", help="run directories, one model each")
    p.add_argument("--budget", type=float, default=0.03, help="failure budget per step (0.03)")
    p.add_argument(
        "--rule",
        choices=("estimate", "upper"),
        default="estimate",
        help="judge the budget on the rate's estimate (default) or its interval's upper bound",
    )
    p.add_argument("--steps", type=int, default=None, help="steps (default: as the data allow)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals")
    p.add_argument("--resamples", type=int, default=500, help="bootstrap resamples (500)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (0.95)")
    return p


def cli_main(argv: list[str]) -> int:
    """Run ``simlab routing``; 0 when printed, 2 on bad input (message, no traceback)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    if not 0.0 <= args.budget <= 1.0 or not 0.0 < args.level < 1.0 or args.resamples < 1:
        print("simlab routing: need 0 <= --budget <= 1, 0 < --level < 1, --resamples >= 1",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.steps is not None and args.steps < 1:
        print("simlab routing: --steps must be at least 1", file=sys.stderr)
        return 2
    try:
        report = analyse_routing(
            args.runs, args.budget, args.rule, args.steps, args.seed, args.resamples, args.level
        )
    except (RoutingError, RunDirError) as e:
        print(f"simlab routing: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(render_routing(report))
    return 0

"""``simlab compare RUN_A RUN_B``: compare a candidate run with a baseline and gate it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from simlab.compare._analysis import compare_runs
from simlab.compare._gates import Gates, evaluate_gates, load_gates
from simlab.compare._junit import render_junit
from simlab.compare._markdown import render_markdown, verdict
from simlab.compare._pairing import load_run
from simlab.compare._terminal import render_terminal
from simlab.report import stdout_console
from simlab.spec import SpecError
from simlab.store import RunDirError, write_atomic


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="simlab compare",
        description="Compare run B (candidate) with run A (baseline): pass rates per length "
        "bucket and persona with intervals, McNemar on paired sessions, aptitude and "
        "unreliability deltas, Simpson's-paradox warning, regressions; gate the release.",
    )
    p.add_argument("run_a", type=Path, help="baseline run directory")
    p.add_argument("run_b", type=Path, help="candidate run directory")
    p.add_argument("--gates", type=Path, default=None, help="gates YAML (defaults otherwise)")
    p.add_argument("--junit", type=Path, default=None, help="write the gates as JUnit XML here")
    p.add_argument("--markdown", type=Path, default=None, help="write a PR-comment summary here")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    p.add_argument("--max-listed", type=int, default=50, help="most regressions/errors listed")
    p.add_argument("--quiet", action="store_true", help="print only the verdict")
    return p


def cli_main(argv: list[str]) -> int:
    """Run ``simlab compare``.

    Args:
        argv: The arguments after ``compare``.

    Returns:
        0 when every gate passes, 1 when a gate fails, 2 on bad input (a
        missing run, an invalid gates file, bad arguments).
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse printed its message; hand back its code
        return e.code if isinstance(e.code, int) else 2
    if not 0.0 < args.level < 1.0 or args.resamples < 1 or args.max_listed < 0:
        print(
            "simlab compare: need 0 < --level < 1, --resamples >= 1, --max-listed >= 0",
            file=sys.stderr,
        )
        return 2
    try:
        gates = load_gates(args.gates) if args.gates else Gates()
        run_a, run_b = load_run(args.run_a), load_run(args.run_b)
    except (SpecError, RunDirError) as e:
        print(f"simlab compare: {e}", file=sys.stderr)
        return 2
    comparison = compare_runs(run_a, run_b, args.seed, args.level, args.resamples)
    results = evaluate_gates(comparison, gates)
    # an OSError (a folder in the way) reaches simlab's CLI, which names the path
    if args.junit:
        args.junit.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(args.junit, render_junit(results, comparison=comparison))
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        text = render_markdown(comparison, results, args.markdown.parent, args.max_listed)
        write_atomic(args.markdown, text)
    console = stdout_console()
    if args.quiet:
        for warning in comparison.warnings:
            console.print("Warning: " + warning, markup=False)
        if comparison.simpson.warn:
            console.print("Warning: " + comparison.simpson.message, markup=False)
        console.print(verdict(results), markup=False)
    else:
        render_terminal(comparison, results, console, args.max_listed)
    return 1 if any(r.status == "failed" for r in results) else 0

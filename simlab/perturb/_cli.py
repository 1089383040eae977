"""``simlab brittleness``: the cumulative-perturbation experiment from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import anyio
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab.perturb._experiment import Experiment, brittleness_from_run, brittleness_from_suite
from simlab.spec import SpecError
from simlab.store import BRITTLENESS_FILE, RunDirError

EXIT_OK, EXIT_USAGE = 0, 2


def _median(value: float | None, max_k: int) -> str:
    return f">{max_k}" if value is None else f"{value:g}"


def _share(row: dict[str, Any]) -> str:
    share, ci = row["survived_all_share"], row["survived_all_ci"]
    if share is None:
        return "-"
    return f"{share:.0%} [{ci[0]:.0%}, {ci[1]:.0%}]"


def _top(broke_by: dict[str, int]) -> str:
    return ", ".join(f"{escape(k)} {n}" for k, n in list(broke_by.items())[:2]) or "-"


def persona_table(name: str, data: dict[str, Any], max_k: int) -> Table:
    """Per persona, then overall: n, failed, censored, KM median, survived all, what broke it."""
    table = Table(
        title=f"Brittleness of {escape(name)}: perturbations stacked until a passing session fails",
        caption=f"{data['n_passed_baseline']} of {data['n_baseline']} baseline sessions passed "
        f"({data['n_baseline_errors']} errors excluded); median: Kaplan-Meier, censored "
        f"sessions kept at risk; >{max_k}: survival never fell to 50%",
    )
    for col in ("persona", "n", "failed", "censored", "median k", "survived all [95% CI]"):
        table.add_column(col, justify="left" if col == "persona" else "right")
    table.add_column("broke most often")
    rows = [*data["by_persona"].items(), ("overall", data["overall"])]
    for persona, row in rows:
        table.add_row(
            escape(persona),
            str(row["n"]),
            str(row["failed"]),
            str(row["censored"]),
            _median(row["median"], max_k),
            _share(row),
            _top(row["broke_by"]),
            style="bold" if persona == "overall" else None,
        )
    return table


def killers_table(summary: dict[str, Any]) -> Table:
    """Which perturbation's addition broke the failing sessions, per target."""
    names = list(summary["targets"])
    table = Table(title="The perturbation that broke it (the k-th one)")
    table.add_column("perturbation")
    for name in names:
        table.add_column(escape(name), justify="right")
    for pid in summary["perturbations"]:
        counts = [summary["targets"][n]["overall"]["broke_by"].get(pid, 0) for n in names]
        table.add_row(escape(pid), *(str(c) if c else "." for c in counts))
    return table


def print_summary(summary: dict[str, Any], console: Console) -> None:
    """Every table, then the log-rank comparison line."""
    max_k = summary["max_k"]
    for name, data in summary["targets"].items():
        console.print(persona_table(name, data, max_k))
    console.print(killers_table(summary))
    cmp = summary["comparison"]
    if cmp is not None:
        console.print(
            f"log-rank {escape(cmp['a'])} (n={cmp['n'][0]}) vs {escape(cmp['b'])} "
            f"(n={cmp['n'][1]}): chi2 = {cmp['chi2']:.2f}, p = {cmp['p_value']:.3g}; "
            f"failures observed {cmp['observed'][0]} / {cmp['observed'][1]}, "
            f"expected {cmp['expected'][0]:.1f} / {cmp['expected'][1]:.1f}",
            highlight=False,
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simlab brittleness",
        description="Stack perturbations on every passing session, in a seeded order, until "
        "it fails; report Kaplan-Meier survival per persona and compare targets (log-rank).",
    )
    parser.add_argument(
        "run_dir", nargs="?", type=Path, metavar="RUN_DIR", help="a finished run's directory"
    )
    parser.add_argument("--suite", type=Path, help="run this suite first (instead of RUN_DIR)")
    parser.add_argument("--target", help="with --suite: the target to run (reference:v1, ...)")
    parser.add_argument(
        "--compare", action="append", default=[], help="another target to compare (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=Path("results"), help="with --suite")
    parser.add_argument("--seed", type=int, help="with --suite: override the suite's seed")
    parser.add_argument("--reps", type=int, help="with --suite: override the suite's reps")
    parser.add_argument("--max-k", type=int, help="stack at most this many (default: all)")
    parser.add_argument("--concurrency", type=int, default=32, help="sessions running at once")
    parser.add_argument(
        "--perturbations", type=Path, help="the library folder (default: next to the suite)"
    )
    return parser


def _usage_problem(args: argparse.Namespace) -> str | None:
    if (args.run_dir is None) == (args.suite is None):
        return "give either RUN_DIR or --suite SUITE (not both)"
    if args.run_dir is not None and args.target is not None:
        return "--target goes with --suite; a run directory's target is the one it ran"
    if args.max_k is not None and args.max_k < 1:
        return "--max-k must be at least 1"
    if args.concurrency < 1:
        return "--concurrency must be at least 1"
    return None


def cli_main(argv: list[str]) -> int:
    """Run ``simlab brittleness`` with ``argv`` (the arguments after ``brittleness``).

    Returns:
        0 on success; 2 for bad options, a bad run directory, suite or library,
        with a message and no traceback.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse has printed its message
        return EXIT_USAGE if e.code else EXIT_OK
    problem = _usage_problem(args)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        experiment = anyio.run(_run, args)
    except (RunDirError, SpecError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    print_summary(experiment.summary, Console())
    print(f"wrote {experiment.run_dir / BRITTLENESS_FILE}")
    return EXIT_OK


async def _run(args: argparse.Namespace) -> Experiment:
    common: dict[str, Any] = {
        "compare": args.compare,
        "max_k": args.max_k,
        "concurrency": args.concurrency,
        "perturbations": args.perturbations,
    }
    if args.suite is not None:
        if not args.suite.is_file():
            raise FileNotFoundError(f"{args.suite}: no such suite file")
        return await brittleness_from_suite(
            args.suite, args.out, target=args.target, seed=args.seed, reps=args.reps, **common
        )
    return await brittleness_from_run(args.run_dir, **common)

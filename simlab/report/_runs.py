"""``simlab runs``: the runs in a results folder, their headline figures and the trend.

Each row comes from the run's own ``run.json`` and ``summary.json``; runs
without a summary (interrupted before their report) are listed as such, and so
are run directories whose files cannot be read, with the reason. The
trend compares each run with the previous run of the same suite (same name and
target), so a nightly job shows drift at a glance.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab.report._tables import escape_controls
from simlab.store import RunDirError, iter_run_dirs, read_run_info, read_summary


@dataclass(frozen=True, slots=True)
class RunRow:
    """One run's headline figures."""

    run_id: str
    created_at: str
    suite: str
    target: str
    n: int | None
    pass_rate: float | None
    pass_ci: tuple[float, float] | None
    aptitude: float | None
    unreliability: float | None
    problem: str | None = None
    """Why the run's files cannot be read (its figures are then None), or None."""


def run_rows(results: Path) -> list[RunRow]:
    """Every run under ``results``, oldest first; unreadable ones say why in ``problem``."""
    rows = []
    for run_dir in iter_run_dirs(results):
        try:
            info = read_run_info(run_dir)
        except RunDirError as e:
            rows.append(_unreadable_row(run_dir, e))
            continue
        problem = None
        try:
            summary = read_summary(run_dir)
        except RunDirError as e:
            summary, problem = None, _short(run_dir, e)
        overall = summary.overall if summary else None
        rows.append(
            RunRow(
                run_id=info.run_id,
                created_at=info.created_at or "",
                suite=info.suite.name,
                target=info.models.get("agent", ""),
                n=overall.n if overall else None,
                pass_rate=overall.pass_rate if overall else None,
                pass_ci=overall.pass_ci if overall else None,
                aptitude=overall.aptitude if overall else None,
                unreliability=overall.unreliability if overall else None,
                problem=problem,
            )
        )
    return rows


def _unreadable_row(run_dir: Path, e: RunDirError) -> RunRow:
    return RunRow(run_dir.name, "", "", "", None, None, None, None, None, _short(run_dir, e))


def _short(run_dir: Path, e: RunDirError) -> str:
    # The row names the run: the file's own name says enough.
    return str(e).replace(f"{run_dir}/", "")


def trends(rows: Sequence[RunRow]) -> list[float | None]:
    """Per row, its pass rate minus that of the previous run of the same suite and target."""
    last: dict[tuple[str, str], float] = {}
    out: list[float | None] = []
    for row in rows:
        key = (row.suite, row.target)
        before = last.get(key)
        out.append(None if before is None or row.pass_rate is None else row.pass_rate - before)
        if row.pass_rate is not None:
            last[key] = row.pass_rate
    return out


def render_runs(rows: Sequence[RunRow], console: Console) -> None:
    """The runs table; the trend column is in percentage points."""
    table = Table(title="Runs (oldest first)")
    for name in ("run", "created", "suite", "target", "n", "pass rate [95% CI]"):
        table.add_column(name, justify="right" if name == "n" else "left")
    for name in ("aptitude", "unreliability", "trend, pts"):
        table.add_column(name, justify="right")
    for row, trend in zip(rows, trends(rows), strict=True):
        rate = "no summary (interrupted?)"
        if row.problem is not None:
            rate = escape(escape_controls(f"unreadable: {row.problem}"))
        elif row.pass_rate is not None and row.pass_ci is not None:
            lo, hi = row.pass_ci
            rate = f"{row.pass_rate:.1%} [{lo:.1%}, {hi:.1%}]"
        table.add_row(
            escape(escape_controls(row.run_id)),  # run.json is user data
            escape(escape_controls(row.created_at)),
            escape(escape_controls(row.suite)),
            escape(escape_controls(row.target)),
            "—" if row.n is None else str(row.n),
            rate,
            _num(row.aptitude),
            _num(row.unreliability),
            "—" if trend is None else f"{trend * 100:+.1f}",
        )
    console.print(table)


def runs_cli(argv: Sequence[str]) -> int:
    """``simlab runs [RESULTS_DIR]``."""
    parser = argparse.ArgumentParser(prog="simlab runs", description=__doc__)
    parser.add_argument("results", nargs="?", type=Path, default=Path("results"))
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(list(argv))
    if not args.results.is_dir():
        print(f"simlab runs: {args.results} is not a folder", flush=True)
        return 2
    rows = run_rows(args.results)
    if args.json:
        data = [{**asdict(row), "trend": t} for row, t in zip(rows, trends(rows), strict=True)]
        print(json.dumps(data, indent=2))
    else:
        # piped output has no width; 80 columns would wrap every row
        render_runs(rows, Console(highlight=False, width=None if sys.stdout.isatty() else 160))
    return 0


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"

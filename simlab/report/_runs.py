"""``simlab runs``: the runs in a results folder, their headline figures and the trend.

Each row comes from the run's own ``run.json`` and ``summary.json``; runs
without a summary (interrupted before their report) are listed as such, and so
are run directories whose files cannot be read, with the reason. The
trend compares each run with the previous run of the same suite (same name and
target), so a nightly job shows drift at a glance; its interval is Newcombe's
hybrid score interval of the two runs' pass rates, as for independent
samples (`simlab compare` pairs sessions of the same seed, and is narrower then).

A trend needs the two runs to be one test: ``run.json``'s ``test_hash`` covers
the personas, goals, domains and the suite's settings, and leaves the target out.
An edited goal makes another test, and the row says so instead of a number; an
edited agent is what a trend is for. Runs from before the test hash keep their
trend, marked unchecked.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab.report._tables import escape_controls
from simlab.stats import newcombe_interval
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
    aptitude_ci: tuple[float, float] | None = None
    unreliability_ci: tuple[float, float] | None = None
    test_hash: str | None = None
    """What the target was tested with (``run.json``); None in runs from before it."""


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
                aptitude_ci=overall.aptitude_ci if overall else None,
                unreliability_ci=overall.unreliability_ci if overall else None,
                test_hash=info.test_hash,
            )
        )
    return rows


def _unreadable_row(run_dir: Path, e: RunDirError) -> RunRow:
    return RunRow(run_dir.name, "", "", "", None, None, None, None, None, _short(run_dir, e))


def _short(run_dir: Path, e: RunDirError) -> str:
    # The row names the run: the file's own name says enough.
    return str(e).replace(f"{run_dir}/", "")


TrendCheck = Literal["same test", "test changed", "unchecked"]
"""Whether a run and the previous one ran one test: ``unchecked`` when either
run.json predates the test hash."""


def previous_runs(rows: Sequence[RunRow]) -> list[RunRow | None]:
    """Per row, the latest earlier run of the same suite and target that has a pass rate."""
    last: dict[tuple[str, str], RunRow] = {}
    out: list[RunRow | None] = []
    for row in rows:
        key = (row.suite, row.target)
        out.append(last.get(key))
        if row.pass_rate is not None:
            last[key] = row
    return out


def trend_check(before: RunRow, after: RunRow) -> TrendCheck:
    """Whether ``before`` and ``after`` ran the same test (personas, goals, domains...)."""
    if before.test_hash is None or after.test_hash is None:
        return "unchecked"
    return "same test" if before.test_hash == after.test_hash else "test changed"


def trend_checks(rows: Sequence[RunRow]) -> list[TrendCheck | None]:
    """Per row, ``trend_check`` against its previous run; None for a suite's first run."""
    return [
        None if before is None else trend_check(before, row)
        for row, before in zip(rows, previous_runs(rows), strict=True)
    ]


def trends(rows: Sequence[RunRow]) -> list[float | None]:
    """Per row, its pass rate minus that of the previous run of the same suite and
    target; None when there is none, or it ran another test (a changed goal, persona...)."""
    return [_change(before, row) for row, before in zip(rows, previous_runs(rows), strict=True)]


def _change(before: RunRow | None, after: RunRow) -> float | None:
    if before is None or before.pass_rate is None or after.pass_rate is None:
        return None
    if trend_check(before, after) == "test changed":
        return None
    return after.pass_rate - before.pass_rate


def trend_interval(before: RunRow, after: RunRow) -> tuple[float, float] | None:
    """A 95% interval for ``after``'s pass rate minus ``before``'s, as independent samples.

    Newcombe's hybrid score interval (``stats.newcombe_interval``) of the two runs'
    passes out of their graded sessions. None when a run has no rate.
    """
    counts = [
        (round(row.pass_rate * row.n), row.n)
        for row in (before, after)
        if row.pass_rate is not None and row.n
    ]
    if len(counts) < 2:
        return None
    (passed_a, n_a), (passed_b, n_b) = counts
    return newcombe_interval(passed_a, n_a, passed_b, n_b)


def trend_intervals(rows: Sequence[RunRow]) -> list[tuple[float, float] | None]:
    """Per row, ``trend_interval`` against the previous run of the same suite and
    target; None where ``trends`` gives none."""
    return [
        None
        if before is None or trend_check(before, row) == "test changed"
        else trend_interval(before, row)
        for row, before in zip(rows, previous_runs(rows), strict=True)
    ]


def _with_ci(x: float | None, ci: tuple[float, float] | None) -> str:
    if x is None:
        return "—"
    if ci is None:
        return f"{x:.1f}"
    return f"{x:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]"


def render_runs(rows: Sequence[RunRow], console: Console) -> None:
    """The runs table; the trend column is in percentage points."""
    table = Table(title="Runs (oldest first)")
    for name in ("run", "created", "suite", "target", "n", "pass rate [95% CI]"):
        # a run id is what compare and report take: never cut
        table.add_column(name, justify="right" if name == "n" else "left", no_wrap=name == "run")
    for name in ("aptitude [95% CI]", "unreliability [95% CI]", "trend, pts [95% CI]"):
        table.add_column(name, justify="right")
    changes = zip(rows, trends(rows), trend_intervals(rows), trend_checks(rows), strict=True)
    for row, trend, trend_ci, check in changes:
        rate = "no summary (interrupted?)"
        if row.problem is not None:
            rate = escape(escape_controls(f"unreadable: {row.problem}"))
        elif row.n == 0:  # a summary, but every session ended in error
            rate = "no graded session (all errors)"
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
            _with_ci(row.aptitude, row.aptitude_ci),
            _with_ci(row.unreliability, row.unreliability_ci),
            _trend_cell(trend, trend_ci, check),
        )
    console.print(table)
    console.print(
        "trend: the pass rate's change from the previous run of the same suite and target, "
        "in points, with Newcombe's interval for independent samples; `simlab compare` "
        "pairs two runs' sessions of the same seed. A trend needs one test: none is given "
        "when the personas, goals, domains or the suite's other settings changed between "
        "the two runs. 'unchecked': a run from before simlab recorded its test, so the "
        "trend is shown but the test may have changed."
    )


def _trend_cell(
    trend: float | None, ci: tuple[float, float] | None, check: TrendCheck | None
) -> str:
    if check == "test changed":
        return "test changed: no trend"
    if trend is None:
        return "—"
    return _trend(trend, ci) + (" unchecked" if check == "unchecked" else "")


def _trend(trend: float, ci: tuple[float, float] | None) -> str:
    shown = f"{trend * 100:+.1f}"
    return shown if ci is None else f"{shown} [{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}]"


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
        changes = zip(rows, trends(rows), trend_intervals(rows), trend_checks(rows), strict=True)
        data = [
            {**asdict(row), "trend": t, "trend_ci": ci, "trend_check": check}
            for row, t, ci, check in changes
        ]
        print(json.dumps(data, indent=2))
    else:
        # piped output has no width; 80 columns would wrap every row
        render_runs(rows, Console(highlight=False, width=None if sys.stdout.isatty() else 240))
    return 0

"""The comparison as rich tables in the terminal."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from simlab.compare._analysis import Comparison
from simlab.compare._gates import GateResult
from simlab.compare._markdown import verdict
from simlab.compare._tables import Cell, Link, Section, build_sections
from simlab.report import escape_controls


def _text(cell: Cell) -> Text:
    # Text, never markup: ids, details and errors come from user files and agents.
    return Text(escape_controls(cell.text if isinstance(cell, Link) else cell))


def _table(s: Section) -> Table:
    table = Table(
        title=escape(s.title),
        title_justify="left",
        caption=escape(s.note) if s.note else None,
        caption_justify="left",
    )
    for i, head in enumerate(s.headers):
        table.add_column(escape(head), justify="right" if i in s.numeric else "left")
    for row in s.rows:
        table.add_row(*(_text(c) for c in row))
    return table


def render_terminal(
    comparison: Comparison,
    gates: list[GateResult],
    console: Console,
    max_listed: int = 20,
) -> None:
    """Print a comparison: the tables, the Simpson warning, then the gates' verdict last.

    Args:
        comparison: The output of ``compare_runs``.
        gates: The output of ``evaluate_gates``.
        console: Where to print.
        max_listed: Most regressions, violations and errors listed.
    """
    c = comparison
    ids = escape_controls(f"A {c.run_id_a} -> B {c.run_id_b}")  # run.json is user data
    console.print(Text(f"simlab compare: {ids}", style="bold"))
    sections = build_sections(c, gates, Path.cwd(), max_listed)
    # The verdict and gate table close the output, where a CI log is read.
    for s in [*sections[1:], sections[0]]:
        console.print()
        if not s.rows and s.note:  # nothing to tabulate: say why in a line
            console.print(Text(f"{s.title}: {s.note}", style="bold"))
        else:
            console.print(_table(s))
    for warning in [*c.warnings, *([c.simpson.message] if c.simpson.warn else [])]:
        console.print()
        console.print(Text("Warning: " + escape_controls(warning), style="bold yellow"))
    console.print()
    failed = any(g.status == "failed" for g in gates)
    console.print(Text(verdict(gates), style="bold red" if failed else "bold green"))

"""The comparison as rich tables in the terminal."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from simlab.compare._analysis import Comparison
from simlab.compare._gates import GateResult
from simlab.compare._markdown import verdict
from simlab.compare._section import Cell, Link, Section
from simlab.compare._tables import build_sections
from simlab.report import escape_controls


def _text(cell: Cell) -> Text:
    # Text, never markup: ids, details and errors come from user files and agents.
    return Text(escape_controls(cell.text if isinstance(cell, Link) else cell))


_MAX_WORD = 60
"""The longest one-word cells a column keeps whole (longer ones may be cut)."""


def _one_word(s: Section, column: int) -> bool:
    """Whether every cell of the column is one short word: kept whole, never cut with an
    ellipsis (two checks' names differ at their ends; a transcript link is no use
    without its line number), while the other columns wrap."""
    cells = [c.text if isinstance(c, Link) else c for c in (row[column] for row in s.rows)]
    return all(len(c) <= _MAX_WORD and len(c.split()) <= 1 for c in cells)


def _table(s: Section) -> Table:
    table = Table(
        title=escape(s.title),
        title_justify="left",
        caption=escape(s.note) if s.note else None,
        caption_justify="left",
    )
    for i, head in enumerate(s.headers):
        justify: JustifyMethod = "right" if i in s.numeric else "left"
        # folded where a word is wider than its column: never an ellipsis in its place
        table.add_column(escape(head), justify=justify, no_wrap=_one_word(s, i), overflow="fold")
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

"""The report as rich tables in the terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from simlab.report._tables import ReportTable, Section, build_sections, escape_controls
from simlab.store import RunSummary

PIPED_WIDTH = 160
"""Columns of piped output (CI logs, files): rich's 80 would cut figures short."""


def stdout_console() -> Console:
    """A console on stdout: the terminal's width, or ``PIPED_WIDTH`` columns when piped."""
    return Console(width=None if sys.stdout.isatty() else PIPED_WIDTH, highlight=False)


def _text(s: str, style: str = "") -> Text:
    # Text, not markup, and no control character: ids and error messages come from
    # user files, imported logs and crashing targets.
    return Text(escape_controls(s), style=style)


def _table(t: ReportTable) -> Table:
    table = Table(
        title=_text(t.title, "table.title"),
        title_justify="left",
        caption=_text(t.note, "table.caption") if t.note else None,
        caption_justify="left",
    )
    for i, head in enumerate(t.headers):
        table.add_column(_text(head), justify="right" if i in t.numeric else "left")
    for row in t.rows:
        table.add_row(*(_text(cell) for cell in row))
    return table


def render_terminal(summary: RunSummary, console: Console, more: Sequence[Section] = ()) -> None:
    """Print a run's summary as tables; the overall figure is the last line.

    Args:
        summary: The run's summary.
        console: Where to print.
        more: Tables of analyses made on the run (see ``build_sections``).
    """
    for i, section in enumerate(build_sections(summary, more)):
        if i:
            console.print()
        console.print(_table(section) if isinstance(section, ReportTable) else _text(section))

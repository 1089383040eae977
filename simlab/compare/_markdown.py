"""The comparison as markdown for a pull-request comment."""

from __future__ import annotations

from pathlib import Path

from simlab.compare._analysis import Comparison
from simlab.compare._gates import GateResult
from simlab.compare._section import Cell, Link, Section
from simlab.compare._tables import build_sections
from simlab.report import escape_cell


def _cell(cell: Cell) -> str:
    if isinstance(cell, Link):
        # The URL is percent-encoded by its builder; the text is untrusted.
        text = escape_cell(cell.text).replace("[", "\\[").replace("]", "\\]")
        return f"[{text}]({cell.url})"
    return escape_cell(cell)


def _table(s: Section) -> str:
    head = "| " + " | ".join(escape_cell(h) for h in s.headers) + " |"
    rule = "|" + "|".join("---:" if i in s.numeric else "---" for i in range(len(s.headers))) + "|"
    lines = [f"## {escape_cell(s.title)}", "", head, rule]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in s.rows]
    if not s.rows and s.note:  # nothing to tabulate: the note says why
        return "\n".join([*lines[:1], "", escape_cell(s.note[:1].upper() + s.note[1:])])
    if not s.rows:
        lines = [*lines[:1], "", "_none_"]
    if s.note:
        lines += ["", f"_{escape_cell(s.note)}_"]
    return "\n".join(lines)


def verdict(gates: list[GateResult]) -> str:
    """One line: whether every gate passed, and which failed."""
    failed = [g.name for g in gates if g.status == "failed"]
    unsure = [g.name for g in gates if g.status == "inconclusive"]
    more = f"; {len(unsure)} inconclusive, too few sessions: {', '.join(unsure)}" if unsure else ""
    if not failed:
        return f"Gates: PASSED ({sum(g.status == 'passed' for g in gates)} passed{more})"
    return f"Gates: FAILED ({len(failed)} of {len(gates)}): {', '.join(failed)}{more}"


def render_markdown(
    comparison: Comparison, gates: list[GateResult], base: Path, max_listed: int = 50
) -> str:
    """Render a comparison as GitHub-flavoured markdown.

    Args:
        comparison: The output of ``compare_runs``.
        gates: The output of ``evaluate_gates``.
        base: The folder the markdown file will live in; transcript links are relative to it.
        max_listed: Most regressions, violations and errors listed.

    Returns:
        The markdown, ending with a newline; every untrusted string escaped.
    """
    c = comparison
    parts = [
        f"# simlab compare: A {escape_cell(c.run_id_a)} -> B {escape_cell(c.run_id_b)}",
        f"**{escape_cell(verdict(gates))}**",
    ]
    for warning in [*c.warnings, *([c.simpson.message] if c.simpson.warn else [])]:
        parts.append(f"> **Warning.** {escape_cell(warning)}")
    parts += [_table(s) for s in build_sections(c, gates, base, max_listed)]
    return "\n\n".join(parts) + "\n"

"""The report as GitHub-flavoured markdown (``report.md``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from simlab.report._tables import ReportTable, Section, build_sections, escape_controls
from simlab.store import RunSummary

# Markdown syntax a cell's text could open, each broken where it would start:
# always-active characters (table pipe, code, emphasis, strikethrough, GitHub math,
# backslash) get a backslash; HTML and entities become entities; "_" only off a word,
# since intraword it never emphasises (snake_case ids stay readable); an inline link
# or image needs "](" and a GFM autolink "://", "www." or "@". Brackets themselves
# stay: without "](" and with no definitions they are literal, so simlab's own
# intervals ("[39.1%, 86.2%]") read as written.
_SYNTAX = re.compile(r"[\\`*~|$@&<>_]|(?<=\])\(|:(?=//)|(?<=[wW]{3})\.")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _ENTITIES:
        return _ENTITIES[char]
    if char == "_" and _inside_word(match.string, match.start()):
        return char
    return "\\" + char


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def escape_cell(text: str) -> str:
    """Make untrusted text read literally inside a markdown table cell or paragraph.

    Ids and error messages come from user files, imported logs and crashing
    targets: a ``|`` would split the cell, ``<``/``>`` would be HTML, a backtick
    would open code, ``[x](url)`` would be a live link, ``*``/``_`` emphasis, a
    bare URL an autolink, a newline would end the row, an escape sequence would
    reach the reader's terminal. Control characters are shown as escapes first
    (``\\x1b``), then markdown syntax is escaped, then whitespace collapsed.
    """
    text = _SYNTAX.sub(_escape, escape_controls(text))
    return " ".join(text.split())


def _table(t: ReportTable) -> str:
    head = "| " + " | ".join(escape_cell(h) for h in t.headers) + " |"
    rule = "|" + "|".join("---:" if i in t.numeric else "---" for i in range(len(t.headers)))
    lines = [f"## {escape_cell(t.title)}", "", head, rule + "|"]
    lines += ["| " + " | ".join(escape_cell(c) for c in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"_{escape_cell(t.note)}_"]
    return "\n".join(lines)


def render_markdown(summary: RunSummary, title: str, more: Sequence[Section] = ()) -> str:
    """Render a run's summary as markdown; the overall figure is the last line.

    Args:
        summary: The run's summary.
        title: The document's title (escaped).
        more: Tables of analyses made on the run (see ``build_sections``).

    Returns:
        The markdown text, ending with a newline.
    """
    parts = [f"# {escape_cell(title)}"]
    for section in build_sections(summary, more):
        parts.append(_table(section) if isinstance(section, ReportTable) else escape_cell(section))
    return "\n\n".join(parts) + "\n"

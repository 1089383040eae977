"""The report as GitHub-flavoured markdown (``report.md``)."""

from __future__ import annotations

from typing import Any

from simlab.report._tables import ReportTable, build_sections

# Order matters: backslash and ampersand first, so later escapes are not re-escaped.
_ESCAPES = (
    ("\\", "\\\\"),
    ("&", "&amp;"),
    ("|", "\\|"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ("`", "\\`"),
)


def escape_cell(text: str) -> str:
    """Make text safe inside a markdown table cell.

    Ids and error messages come from user files: a ``|`` would split the cell,
    ``<``/``>`` would be HTML, a backtick would open code, a newline would end the row.
    """
    for old, new in _ESCAPES:
        text = text.replace(old, new)
    return " ".join(text.split())


def _table(t: ReportTable) -> str:
    head = "| " + " | ".join(escape_cell(h) for h in t.headers) + " |"
    rule = "|" + "|".join("---:" if i in t.numeric else "---" for i in range(len(t.headers)))
    lines = [f"## {escape_cell(t.title)}", "", head, rule + "|"]
    lines += ["| " + " | ".join(escape_cell(c) for c in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"_{escape_cell(t.note)}_"]
    return "\n".join(lines)


def render_markdown(summary: dict[str, Any], title: str) -> str:
    """Render a run's summary as markdown; the overall figure is the last line.

    Args:
        summary: The output of ``summarize``.
        title: The document's title (escaped).

    Returns:
        The markdown text, ending with a newline.
    """
    parts = [f"# {escape_cell(title)}"]
    for section in build_sections(summary):
        parts.append(_table(section) if isinstance(section, ReportTable) else escape_cell(section))
    return "\n\n".join(parts) + "\n"

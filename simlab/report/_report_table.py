"""A report table: what every renderer (terminal, markdown, HTML) draws."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ReportTable:
    """A titled table of already-formatted cells."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""
    numeric: set[int] = field(default_factory=set)  # right-aligned columns


Section = ReportTable | str
"""A table, or a line of text."""

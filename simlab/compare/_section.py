"""The neutral table the comparison's writers render: titled rows of cells."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Link:
    """A cell that links somewhere: markdown shows a link, the terminal its text."""

    text: str
    url: str


Cell = str | Link


@dataclass(frozen=True, slots=True)
class Section:
    """One table: rows of cells; ``numeric`` columns are right-aligned."""

    title: str
    headers: list[str]
    rows: list[list[Cell]]
    numeric: set[int] = field(default_factory=set)
    note: str = ""

"""Reports of a run: ``summary.json`` content, terminal tables and markdown."""

from simlab.report._markdown import escape_cell, render_markdown
from simlab.report._summary import SUMMARY_SCHEMA_VERSION, UNBUCKETED, summarize
from simlab.report._terminal import render_terminal

__all__ = [
    "SUMMARY_SCHEMA_VERSION",
    "UNBUCKETED",
    "escape_cell",
    "render_markdown",
    "render_terminal",
    "summarize",
]

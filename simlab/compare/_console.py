"""Where ``simlab compare`` and ``simlab diagnose`` print: the terminal, or a pipe."""

from __future__ import annotations

import sys

from rich.console import Console

PIPED_WIDTH = 160
"""Columns of piped output (CI logs, files): rich's 80 would cut figures short."""


def stdout_console() -> Console:
    """A console on stdout: the terminal's width, or ``PIPED_WIDTH`` columns when piped.

    The same rule as ``simlab.cli``'s console for ``run`` and ``report``.
    """
    return Console(width=None if sys.stdout.isatty() else PIPED_WIDTH, highlight=False)

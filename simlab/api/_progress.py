"""Sessions done, rate, ETA and errors: a progress bar on stderr."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from simlab.store import SessionRecord


class RunProgress:
    """Counts the sessions this invocation finishes; draws a bar when enabled."""

    def __init__(self, total: int, done: int, enabled: bool, console: Console | None = None):
        self.errors = 0
        self.finished = 0  # sessions finished by this invocation, resumed ones not counted
        self._progress = Progress(
            TextColumn("sessions"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("errors {task.fields[errors]}"),
            console=console or Console(stderr=True, highlight=False),
            disable=not enabled,
        )
        self._task = self._progress.add_task("run", total=total, completed=done, rate="-", errors=0)

    def advance(self, record: SessionRecord) -> None:
        """One more session finished."""
        self.finished += 1
        if record.status == "error":
            self.errors += 1
        speed = self._progress.tasks[0].speed
        self._progress.update(
            self._task, advance=1, errors=self.errors, rate=f"{speed:.0f}" if speed else "-"
        )

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

"""``simlab.read_run``: any run's files, read and validated as typed models."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from simlab.api._run import RunPaths
from simlab.store import (
    RunInfo,
    RunSummary,
    SessionRecord,
    read_run_info,
    read_sessions,
    read_summary,
)


@dataclass(frozen=True)
class Run:
    """A run read from its folder.

    Attributes:
        info: ``run.json``.
        records: Each key's outcome (a retried error's newer record in its place).
        replaced: Error records a retry replaced (their cost still counts).
        summary: ``summary.json``, or None before the run's reports were written.
        paths: The run's files.
    """

    info: RunInfo
    records: list[SessionRecord]
    replaced: list[SessionRecord] = field(default_factory=list)
    summary: RunSummary | None = None
    paths: RunPaths | None = None

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self.info.run_id


def read_run(run_dir: str | Path) -> Run:
    """Read a run directory: run.json, sessions.jsonl and summary.json, validated.

    Raises:
        RunDirError: a file is missing, unreadable, or not what simlab writes
            (the message names the file and the field).
    """
    path = Path(run_dir)
    info = read_run_info(path)
    sessions = read_sessions(path)
    summary = read_summary(path)
    return Run(info, sessions.records, sessions.replaced, summary, RunPaths(path))

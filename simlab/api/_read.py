"""``simlab.read_run``: any run's files, read and validated as typed models."""

from __future__ import annotations

from pathlib import Path

from simlab.api._result import RunPaths, RunResult
from simlab.report import summary_of
from simlab.store import read_run_info, read_sessions, read_summary


def read_run(run_dir: str | Path) -> RunResult:
    """Read a run directory: run.json, sessions.jsonl and summary.json, validated.

    A run whose reports were not written yet (interrupted, or still running) has
    its summary worked out from the records read; nothing is written.

    Raises:
        RunDirError: a file is missing, unreadable, or not what simlab writes
            (the message names the file and the field).
    """
    path = Path(run_dir)
    info = read_run_info(path)
    sessions = read_sessions(path)
    summary = read_summary(path)
    if summary is None:
        summary = summary_of(info, sessions.records, sessions.replaced)
    return RunResult(
        info=info,
        paths=RunPaths(path),
        summary=summary,
        records=sessions.records,
        replaced=sessions.replaced,
    )

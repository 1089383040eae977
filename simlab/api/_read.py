"""``simlab.read_run``: any run's files, read and validated as typed models."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from simlab.api._run import RunPaths
from simlab.store import (
    RunDirError,
    RunInfo,
    RunSummary,
    SessionRecord,
    first_problem,
    read_run_info,
    read_sessions,
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
    info_path = path / "run.json"
    try:
        info = RunInfo.model_validate(read_run_info(path))
    except ValidationError as e:
        raise RunDirError(f"{info_path}: {first_problem(e)}") from None
    sessions = read_sessions(path)
    summary = _summary(path / "summary.json")
    return Run(info, sessions.records, sessions.replaced, summary, RunPaths(path))


def _summary(path: Path) -> RunSummary | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise RunDirError(f"{path}: cannot be read ({e})") from None
    try:
        return RunSummary.model_validate(json.loads(text))
    except json.JSONDecodeError as e:
        raise RunDirError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    except ValidationError as e:
        raise RunDirError(f"{path}: {first_problem(e)}") from None

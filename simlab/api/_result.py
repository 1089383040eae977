"""A run as Python sees it: what ``simlab.run`` returns and ``simlab.read_run`` reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from simlab.replay import PrefixResult
from simlab.store import (
    HTML_REPORT_FILE,
    REPORT_FILE,
    RUN_FILE,
    SESSIONS_FILE,
    SUMMARY_FILE,
    RunInfo,
    RunSummary,
    SessionRecord,
)


@dataclass(frozen=True)
class RunPaths:
    """The files of a run directory."""

    run_dir: Path

    @property
    def run_json(self) -> Path:
        return self.run_dir / RUN_FILE

    @property
    def sessions(self) -> Path:
        return self.run_dir / SESSIONS_FILE

    @property
    def summary(self) -> Path:
        return self.run_dir / SUMMARY_FILE

    @property
    def report_md(self) -> Path:
        return self.run_dir / REPORT_FILE

    @property
    def report_html(self) -> Path:
        return self.run_dir / HTML_REPORT_FILE


@dataclass(frozen=True)
class RunResult:
    """A run: what ``simlab.run`` produced, or what ``simlab.read_run`` read back.

    Attributes:
        info: ``run.json``: the suite, its hashes, roles, models and prices.
        paths: The run's files.
        summary: ``summary.json`` as a typed model: every figure, with its n and
            interval (read back before the run's reports were written: the same
            figures worked out from its records).
        records: Each session's outcome, in the file's order (a retried error
            session's new record in place of the old one); empty from a slim
            run (``sessions.jsonl`` has them).
        replaced: Error records a retry replaced (their cost still counts); read back only.
        not_started: Sessions the budget stopped before they started (``run`` only).
        prefix_cases: Keep-rates of the suite's prefix regression cases (``run``
            only; ``prefix_cases.json`` holds them).
        messages: What the run said along the way (``run`` only).
    """

    info: RunInfo
    paths: RunPaths
    summary: RunSummary
    records: list[SessionRecord]
    replaced: list[SessionRecord] = field(default_factory=list)
    not_started: int = 0
    prefix_cases: list[PrefixResult] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        """The run's id (its folder's name)."""
        return self.info.run_id

    @property
    def run_dir(self) -> Path:
        """The run's folder."""
        return self.paths.run_dir

    @property
    def graded(self) -> int:
        """Sessions graded (not ended in error)."""
        return self.summary.overall.n

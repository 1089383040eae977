"""The run directory: ``run.json``, append-only ``sessions.jsonl``, reports.

Sessions are appended and flushed one line at a time as they finish, so a
crash (SIGKILL included) loses at most the line being written; the reader
drops such a torn last line and resume runs only the keys that are missing.

The file is never rewritten, so a key can have more than one record. A key's
outcome is its first graded (``status="ok"``) record; before one comes, its
latest ``error`` record. In order of the lines: a record supersedes an earlier
*error* record of its key (a session re-run after an outage, ``simlab run
--resume --retry-errors``), and a record that follows a graded one is a
duplicate and ignored (two writers on one run), so a verdict on the target is
never replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from simlab.core import SessionKey
from simlab.store._files import RunInfo
from simlab.store._record import SCHEMA_VERSION, SessionRecord

RUN_FILE = "run.json"
SESSIONS_FILE = "sessions.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
HTML_REPORT_FILE = "report.html"
DIAGNOSIS_FILE = "diagnosis.json"
BRITTLENESS_FILE = "brittleness.json"
BRITTLENESS_SESSIONS_FILE = "brittleness_sessions.jsonl"
PREFIX_CASES_FILE = "prefix_cases.json"
LOCK_FILE = ".lock"


class RunDirError(Exception):
    """A run directory cannot be read or resumed; the message says why and what to do."""


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old file or the new one, never half.

    Raises:
        OSError: The write or the rename failed (``path`` a directory, say); the
            error names ``path``, and no temporary file is left behind.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(e, OSError) and e.errno is not None:
            # name the file asked for, not the temporary one beside it
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically."""
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_run_info(run_dir: Path) -> dict[str, Any]:
    """The run's ``run.json``, validated through ``RunInfo`` (file, field and fix named)."""
    path = run_dir / RUN_FILE
    if path.exists() and not path.is_file() and not path.is_dir():  # a FIFO would block
        raise RunDirError(f"{path} is not a regular file; a run's run.json is a JSON file")
    try:
        info: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if not run_dir.exists():
            raise RunDirError(f"{run_dir} not found: no such run directory") from None
        raise RunDirError(f"{path} not found: is {run_dir} a simlab run directory?") from None
    except NotADirectoryError:
        raise RunDirError(
            f"{run_dir} is not a directory; give a run directory (results/<run id>)"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise _unreadable(path, e) from None
    except json.JSONDecodeError as e:
        raise RunDirError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(info, dict):
        raise RunDirError(f"{path}: expected a JSON object, got {type(info).__name__}")
    missing = [k for k in ("schema_version", "run_id", "suite") if k not in info]
    if missing:
        raise RunDirError(f"{path}: missing {', '.join(missing)}; is this a simlab run.json?")
    version = info.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise RunDirError(
            f"{path}: schema_version {version!r} is newer than this simlab reads "
            f"({SCHEMA_VERSION}); upgrade simlab to read it"
        )
    try:
        RunInfo.model_validate(info)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise RunDirError(
            f"{path}: {where}: {first['msg']}; this run.json is damaged or not simlab's"
        ) from None
    return info


@dataclass(frozen=True, slots=True)
class SessionsFile:
    """What ``sessions.jsonl`` holds: the records, and the byte length of its good part."""

    records: list[SessionRecord]
    good_bytes: int
    torn: bool
    duplicates: int = 0
    """Later records of a key already graded; they are left out of ``records``."""
    lines: list[int] = field(default_factory=list)
    """The 1-based line of each of ``records`` in the file."""
    replaced: list[SessionRecord] = field(default_factory=list)
    """Error records replaced by a later record of their key (a retried session);
    their calls were billed, so the run's cost counts them."""
    cost_usd: float = 0.0
    """What every complete line cost, superseded and duplicate records included."""


def read_sessions(run_dir: Path) -> SessionsFile:
    """Every key's outcome in ``sessions.jsonl``; a torn last line is dropped.

    A key's outcome is its first graded record, or else its last error record
    (see the module docstring); ``records`` are in the order of their lines.
    A bad line anywhere but the end is corruption, not a crash artefact, and is
    reported with its line number.
    """
    path = run_dir / SESSIONS_FILE
    if not path.exists():
        return SessionsFile([], 0, False)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise _unreadable(path, e) from None
    *complete, tail = data.split(b"\n")  # tail: bytes after the last newline (a torn line)
    outcomes: dict[SessionKey, tuple[int, SessionRecord]] = {}
    duplicates = 0
    replaced: list[SessionRecord] = []
    cost = 0.0
    for number, raw in enumerate(complete, start=1):
        try:
            record = SessionRecord.model_validate_json(raw)
        except ValidationError as e:
            raise RunDirError(f"{path}:{number}: {_why_not_a_record(raw, e)}") from None
        cost += record.cost_usd  # a superseded session's money was spent all the same
        earlier = outcomes.get(record.key)
        if earlier is not None and earlier[1].status != "error":
            duplicates += 1  # a graded key is never re-decided
            continue
        if earlier is not None:
            replaced.append(earlier[1])
        outcomes[record.key] = (number, record)
    ordered = sorted(outcomes.values(), key=lambda pair: pair[0])
    return SessionsFile(
        records=[record for _, record in ordered],
        good_bytes=len(data) - len(tail),
        torn=tail != b"",
        duplicates=duplicates,
        lines=[number for number, _ in ordered],
        replaced=replaced,
        cost_usd=cost,
    )


def _unreadable(path: Path, e: OSError | UnicodeDecodeError) -> RunDirError:
    """The error for a file of a run directory that cannot be read: why, and what to do."""
    if isinstance(e, UnicodeDecodeError):
        return RunDirError(f"{path}: not UTF-8 text (byte {e.start}); is it a simlab file?")
    if isinstance(e, IsADirectoryError):
        return RunDirError(f"{path} is a directory, not a file; move it away or restore the file")
    return RunDirError(f"{path}: cannot read ({e.strerror or e}); check the path and permissions")


def _why_not_a_record(raw: bytes, e: ValidationError) -> str:
    """What is wrong with one line, with the field and the fix: never pydantic's dump."""
    if not raw.strip():
        return "blank line; a sessions file has one JSON record per line (delete the line)"
    errors = e.errors()
    first = errors[0]
    if first["type"] == "json_invalid":
        detail = str(first["msg"]).removeprefix("Invalid JSON: ")
        return f"not JSON ({detail}); the file is damaged: restore it or delete the line"
    field = ".".join(str(p) for p in first["loc"]) or "the record"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"not a session record: {field}: {first['msg']}{more}"


class SessionWriter:
    """Appends records to ``sessions.jsonl``, one flushed line per session."""

    def __init__(self, run_dir: Path, truncate_to: int | None = None) -> None:
        # One writer per run: two processes resuming one run would append the same keys.
        self._lock = (run_dir / LOCK_FILE).open("w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise RunDirError(
                f"another simlab process is writing {run_dir}; wait for it or stop it first"
            ) from None
        path = run_dir / SESSIONS_FILE
        if truncate_to is not None and path.exists():
            with path.open("r+b") as f:
                f.truncate(truncate_to)
        self._file: IO[str] = path.open("a", encoding="utf-8")

    def append(self, record: SessionRecord) -> None:
        """Write one record and hand it to the OS at once (it survives SIGKILL)."""
        self._file.write(record.model_dump_json(exclude_none=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Flush to disk and close."""
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
        if not self._lock.closed:
            self._lock.close()  # releases the flock

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_run_dirs(results: Path) -> Iterator[Path]:
    """Run directories under ``results``, oldest first."""
    if results.is_dir():
        yield from sorted(p for p in results.iterdir() if (p / RUN_FILE).exists())

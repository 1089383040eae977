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
import errno
import fcntl
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from frozendict import frozendict
from pydantic import ValidationError

from simlab.core import Check, SessionKey, Transcript, add_cost, tool_call_counts
from simlab.store._encoding import record_line
from simlab.store._files import RunInfo, first_problem
from simlab.store._record import SCHEMA_VERSION, SessionRecord
from simlab.store._summary import RunSummary

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


def open_no_link(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open(path, flags)`` that refuses a symbolic link at ``path``.

    A run directory's files (its lock, records and reports) are written where they
    are: a link planted in their place would have simlab truncate or overwrite the
    file it points to.

    Raises:
        RunDirError: ``path`` is a symbolic link (the message says what to do).
        OSError: The open failed for another reason.
    """
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as e:
        if e.errno == errno.ELOOP or path.is_symlink():
            raise RunDirError(
                f"{path} is a symbolic link; simlab does not follow links for the files "
                "of a run directory (it would write where the link points): remove the "
                "link, then run again"
            ) from None
        raise


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old file or the new one, never half.

    Raises:
        OSError: The write or the rename failed (``path`` a directory, say); the
            error names ``path``, and no temporary file is left behind.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        # the temporary file is new or replaced, never a link followed (see open_no_link)
        with contextlib.suppress(FileNotFoundError):
            if tmp.is_symlink():
                tmp.unlink()
        fd = open_no_link(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with open(fd, "w", encoding="utf-8") as f:
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


def read_run_info(run_dir: Path) -> RunInfo:
    """The run's ``run.json`` as a ``RunInfo`` (a problem names the file, field and fix)."""
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
        return RunInfo.model_validate(info)
    except ValidationError as e:
        raise RunDirError(
            f"{path}: {first_problem(e)}; this run.json is damaged or not simlab's"
        ) from None


def read_summary(run_dir: Path) -> RunSummary | None:
    """The run's ``summary.json`` as a ``RunSummary``; None before its reports were written.

    Raises:
        RunDirError: the file cannot be read or is not what simlab writes (file,
            line or field named, and how to rewrite it).
    """
    path = run_dir / SUMMARY_FILE
    if path.exists() and not path.is_file():  # a FIFO would block
        raise RunDirError(f"{path} is not a regular file; rewrite it with `simlab report RUN_DIR`")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise _unreadable(path, e) from None
    try:
        return RunSummary.model_validate(json.loads(text))
    except json.JSONDecodeError as e:
        raise RunDirError(
            f"{path}:{e.lineno}: not valid JSON ({e.msg}); rewrite it with `simlab report RUN_DIR`"
        ) from None
    except ValidationError as e:
        raise RunDirError(
            f"{path}: {first_problem(e)}; rewrite it with `simlab report RUN_DIR`"
        ) from None


def write_run_info(run_dir: Path, info: RunInfo) -> None:
    """Write ``run.json`` back: what was read, with the changes made to it (fields the
    file did not have stay out, so a rewrite adds no defaults it never said)."""
    write_json(run_dir / RUN_FILE, info.model_dump(mode="json", exclude_unset=True))


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
    cost_usd: float | None = 0.0
    """What every complete line cost, superseded and duplicate records included."""


TOOL_CALL_COUNTS_META = "tool_call_counts"
"""A slim record's ``meta`` entry: ``[calls, calls without reported results]``."""

UNHEARD_META = "unheard"
"""A record's ``meta`` entry for the agent turns its simulated user answered without
understanding them (a question no cue of the domain names): ``{count, first_turn,
first_text}``; absent when there were none (and in records written before it existed)."""

SUMMARY_META_KEYS = (
    "llm",
    "retries",
    "simulator_faults",
    "grader_error",
    "truncated",
    "imported",
    UNHEARD_META,
)
"""The ``meta`` entries a run's summary reads; a slim record keeps only these."""
_SLIM_META_KEYS = (*SUMMARY_META_KEYS, TOOL_CALL_COUNTS_META)
"""What a slim record's meta keeps: a slim record made again from a slim one (read
back from JSON, say) keeps the counts the first made from the transcript."""


def slim_record(record: SessionRecord) -> SessionRecord:
    """``record`` with what a summary needs only: no transcript, each check's name,
    verdict and credit (no detail), the first line of the error, the summary's
    meta entries.

    A run's full records take about 60 KB each in memory; slim ones share what
    repeats (ids, checks) and take about 2 KB.
    """
    full_meta = record.meta  # read once: a model's attribute read is no plain one
    meta = {k: full_meta[k] for k in _SLIM_META_KEYS if k in full_meta} if full_meta else {}
    counts = tool_call_counts(record.transcript)
    if counts != (0, 0):  # what the summary counts from the transcript it drops
        meta[TOOL_CALL_COUNTS_META] = counts
    # a copy with six fields replaced: a third of model_construct's cost, which sets
    # all nineteen one by one
    return record.model_copy(
        update={
            "key": _interned_key(record.key),
            "checks": _shared_checks(record.checks),
            "transcript": Transcript(),
            "error": None
            if record.error is None
            else record.error.model_copy(update={"traceback": None}),
            "meta": frozendict(meta),  # model_copy does not validate: frozen here
        }
    )


def _interned_key(key: SessionKey) -> SessionKey:
    """``key`` with its names interned, so a run's records share one string of each
    (``expand`` interns them: such a key is returned as it is)."""
    for name in (key.persona, key.goal, key.mode, *key.perturbations):
        if sys.intern(name) is not name:
            break
    else:  # every name interned already (a loop: no generator for ``all`` to set up)
        return key
    return key.model_copy(
        update={
            "persona": sys.intern(key.persona),
            "goal": sys.intern(key.goal),
            "mode": sys.intern(key.mode),
            "perturbations": tuple(sys.intern(p) for p in key.perturbations),
        }
    )


def _shared_checks(checks: Mapping[str, Check]) -> Mapping[str, Check]:
    """The checks without their detail or turn, one shared dict per pattern of verdicts
    (a run has few: sessions pass and fail the same checks in a few ways). A judge's
    per-criterion answers are verdicts too: the summary tallies them."""
    pattern = tuple(
        (name, c.passed, c.score, None if c.criteria is None else tuple(c.criteria.items()))
        for name, c in checks.items()
    )
    shared = _CHECK_PATTERNS.get(pattern)
    if shared is None:
        shared = frozendict((name, _verdict_only(c)) for name, c in checks.items())
        if len(_CHECK_PATTERNS) < 100_000:  # bounded: hostile runs cannot grow it forever
            _CHECK_PATTERNS[pattern] = shared
    return shared


def _verdict_only(check: Check) -> Check:
    """``check``'s name, verdict, score and criteria, as a new check."""
    try:  # validated: half model_construct's cost, which sets each field in Python
        return Check(
            name=check.name, passed=check.passed, score=check.score, criteria=check.criteria
        )
    except ValidationError:  # a grader changed the check after making it: kept as it is
        return Check.model_construct(
            name=check.name, passed=check.passed, score=check.score, criteria=check.criteria
        )


_CriteriaPattern = tuple[tuple[str, bool | None], ...] | None
_CHECK_PATTERNS: dict[
    tuple[tuple[str, bool, float | None, _CriteriaPattern], ...], Mapping[str, Check]
] = {}


def read_sessions(run_dir: Path, slim: bool = False) -> SessionsFile:
    """Every key's outcome in ``sessions.jsonl``; a torn last line is dropped.

    A key's outcome is its first graded record, or else its last error record
    (see the module docstring); ``records`` are in the order of their lines.
    A bad line anywhere but the end is corruption, not a crash artefact, and is
    reported with its line number. ``slim``: each record as ``slim_record``
    makes it, as it is read (memory then grows by about 1 KB per session, not 60).
    """
    path = run_dir / SESSIONS_FILE
    if not path.exists():
        return SessionsFile([], 0, False)
    size, complete, tail = _lines(path)
    outcomes: dict[SessionKey, tuple[int, SessionRecord]] = {}
    duplicates = 0
    replaced: list[SessionRecord] = []
    cost: float | None = 0.0
    for number, raw in enumerate(complete, start=1):
        record = _parse(path, number, raw)
        if slim:
            record = slim_record(record)
        # a superseded session's money was spent all the same
        cost = add_cost(cost, record.cost_usd)
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
        good_bytes=size - len(tail),
        torn=tail != b"",
        duplicates=duplicates,
        lines=[number for number, _ in ordered],
        replaced=replaced,
        cost_usd=cost,
    )


def has_sessions(run_dir: Path) -> bool:
    """Whether ``sessions.jsonl`` holds a finished session: a complete line, its first
    (not parsed here: reading the run, ``read_sessions``, says where a line is bad)."""
    path = run_dir / SESSIONS_FILE
    if not path.exists():
        return False
    _, complete, _ = _lines(path)
    return next(complete, None) is not None


def _lines(path: Path) -> tuple[int, Iterator[bytes], bytes]:
    """The file's size, its complete lines (read as they are iterated) and its torn tail."""
    if path.is_symlink():
        raise RunDirError(
            f"{path} is a symbolic link; simlab reads and writes a run's records only "
            "in its own folder: replace the link with the file"
        )
    if path.is_dir():
        raise RunDirError(f"{path} is a directory, not a file; move it away to read the run")
    if not path.is_file():  # a FIFO would block the read forever
        raise RunDirError(f"{path} is not a regular file; a run's sessions are a JSON-lines file")
    try:
        size = path.stat().st_size
        with path.open("rb") as f:  # the tail: whatever follows the last newline
            f.seek(max(0, size - 65536))
            end = f.read()
    except OSError as e:
        raise _unreadable(path, e) from None
    newline = end.rfind(b"\n")
    if newline < 0 and size > len(end):  # a last line longer than 64 KB
        with path.open("rb") as f:
            whole = f.read()
        newline, end = whole.rfind(b"\n"), whole
    tail = end[newline + 1 :] if newline >= 0 else end
    good = size - len(tail)

    def complete() -> Iterator[bytes]:
        try:
            with path.open("rb") as f:
                done = 0
                for line in f:
                    if done + len(line) > good:
                        return
                    done += len(line)
                    yield line[:-1]
        except OSError as e:
            raise _unreadable(path, e) from None

    return size, complete(), tail


def _parse(path: Path, number: int, raw: bytes) -> SessionRecord:
    try:
        return SessionRecord.model_validate_json(raw)
    except ValidationError as e:
        raise RunDirError(f"{path}:{number}: {_why_not_a_record(raw, e)}") from None


def read_lines(run_dir: Path, numbers: Iterable[int]) -> dict[int, SessionRecord]:
    """The full records on the given 1-based lines of ``sessions.jsonl`` (``SessionsFile.lines``
    says where each outcome is), read in one pass that keeps only those."""
    return dict(iter_lines(run_dir, numbers))


def iter_lines(run_dir: Path, numbers: Iterable[int]) -> Iterator[tuple[int, SessionRecord]]:
    """``(line, full record)`` for the given 1-based lines of ``sessions.jsonl``, in the
    file's order, each parsed as it is reached: a caller that lets each record go holds
    one at a time, whatever the run's size."""
    wanted = set(numbers)
    path = run_dir / SESSIONS_FILE
    if not wanted or not path.exists():
        return
    _, complete, _ = _lines(path)
    left = len(wanted)
    for number, raw in enumerate(complete, start=1):
        if number in wanted:
            yield number, _parse(path, number, raw)
            left -= 1
            if not left:
                return


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


class RunLock:
    """A run directory's one-writer lock (an ``flock`` on ``.lock``), held until closed.

    Resume takes it *before* reading ``sessions.jsonl``: a second process that
    read the file first would re-run every session the first one finishes.
    """

    def __init__(self, run_dir: Path) -> None:
        fd = open_no_link(run_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT)
        self._file: IO[str] = os.fdopen(fd, "r+", encoding="utf-8")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            pid = self._file.read().strip()
            self._file.close()
            holder = f" (pid {pid})" if pid.isdigit() else ""
            raise RunDirError(
                f"another simlab process{holder} is running or resuming {run_dir}; "
                "wait for it to finish or stop it, then resume again"
            ) from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(f"{os.getpid()}\n")
        self._file.flush()

    @property
    def closed(self) -> bool:
        """Whether the lock was released."""
        return self._file.closed

    def close(self) -> None:
        """Release the lock."""
        if not self._file.closed:
            self._file.close()  # releases the flock


def read_sessions_locked(run_dir: Path, slim: bool = False) -> tuple[RunLock, SessionsFile]:
    """Take the run's lock, then read its sessions (``slim``: see ``read_sessions``):
    what resume must do, in that order.

    Raises:
        RunDirError: another process holds the lock, or the file is damaged
            (the lock is released again).
    """
    lock = RunLock(run_dir)
    try:
        sessions = read_sessions(run_dir, slim)
        _pause_for_tests()
    except BaseException:
        lock.close()
        raise
    return lock, sessions


def _pause_for_tests() -> None:
    # Widens the window between reading the file and writing to it, so a test can
    # start a second resume inside it (tests/e2e/test_resume_race.py). Unset: no pause.
    pause = os.environ.get("SIMLAB_TEST_PAUSE_AFTER_READ_S")
    if pause:
        time.sleep(float(pause))


class SessionWriter:
    """Appends records to ``sessions.jsonl``, one flushed line per session."""

    def __init__(
        self, run_dir: Path, truncate_to: int | None = None, lock: RunLock | None = None
    ) -> None:
        """Open the file for appending, under ``lock`` (taken now when not given)."""
        # One writer per run: two processes resuming one run would append the same keys.
        self._lock = lock if lock is not None and not lock.closed else RunLock(run_dir)
        path = run_dir / SESSIONS_FILE
        try:
            if truncate_to is not None and path.exists():
                torn = open_no_link(path, os.O_RDWR)
                try:
                    os.ftruncate(torn, truncate_to)
                finally:
                    os.close(torn)
            appending = open_no_link(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except BaseException:
            self._lock.close()
            raise
        self._file: IO[bytes] = os.fdopen(appending, "ab")

    def append(self, record: SessionRecord) -> None:
        """Write one record and hand it to the OS at once (it survives SIGKILL)."""
        # the serializer's UTF-8 bytes as they are: no str conversion, no re-encoding;
        # text that cannot be encoded is escaped (``encodable_record``)
        self.append_line(record_line(record))

    def append_line(self, line: bytes) -> None:
        """Write one record already serialized (``record_line``), as ``append`` does."""
        self._file.write(line + b"\n")
        self._file.flush()

    def close(self) -> None:
        """Flush to disk and close."""
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
        self._lock.close()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_run_dirs(results: Path) -> Iterator[Path]:
    """Run directories under ``results``, oldest first."""
    if results.is_dir():
        yield from sorted(p for p in results.iterdir() if (p / RUN_FILE).exists())

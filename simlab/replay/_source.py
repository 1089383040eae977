"""Reading a log file into records, each with the place it came from.

A file is JSONL (one JSON value per line), one JSON array, or one JSON value
(an OTLP export, say). Every record carries ``file:line`` (and for an array
its element index), so a bad record is reported where a person can find it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """One record of a log file and where it starts."""

    location: str  # "file:line" or "file:line (element i)"
    data: Any


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """A record that was skipped, and why."""

    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class LogFileError(ValueError):
    """A log file that cannot be read as text at all; the message names it and the fix."""


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


MAX_RECORD_BYTES = 8 << 20
"""The most bytes one record (a JSONL line, or a file holding one value) may take; a
longer one is skipped unread, with its size. A logged conversation of hundreds of
turns takes well under 1 MB; decoding a line holds about 30 times its size."""
_CHUNK = 1 << 20


def read_records(path: Path) -> tuple[list[SourceRecord], list[ImportProblem]]:
    """Every record of ``path`` and the problems met reading it.

    Args:
        path: A JSONL file, a file holding one JSON array, or one JSON value.

    Returns:
        The records in file order, and one problem per line or element that is
        not valid JSON (reading goes on after a bad JSONL line; inside an array
        it cannot, so the rest of the array is reported as one problem), or is
        over ``MAX_RECORD_BYTES`` (skipped before it is decoded).

    Raises:
        LogFileError: ``path`` is a folder, unreadable or not UTF-8 text.
    """
    first, size = _first_char(path)
    if first is None:
        return [], [ImportProblem(f"{path}:1", "the file is empty")]
    if first != "[" and size > MAX_RECORD_BYTES:  # JSONL, read a line at a time
        return _stream_jsonl(path)
    text = _read_text(path)
    start = len(text) - len(text.lstrip(_WS))
    if text[start] == "[":
        return _read_array(path, text, start)  # each element within a bounded window
    whole = _whole_value(text, start)
    lines = text.split("\n")
    if whole is not None and _first_line_incomplete(lines):
        return [SourceRecord(f"{path}:{_line_of(text, start)}", whole)], []
    return _read_jsonl(path, lines)


def _first_char(path: Path) -> tuple[str | None, int]:
    """The file's first character that is not white space (None: there is none), and
    its size in bytes, read without loading the file."""
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            while chunk := f.read(_CHUNK):
                stripped = chunk.lstrip(_WS.encode())
                if stripped:
                    return chr(stripped[0]), size
    except IsADirectoryError:
        raise LogFileError(f"{path} is a directory; give a log file (JSONL or JSON)") from None
    except OSError as e:
        raise LogFileError(f"{path}: cannot read ({e.strerror or e})") from None
    return None, size


def _stream_jsonl(path: Path) -> tuple[list[SourceRecord], list[ImportProblem]]:
    """A large JSONL file, a line at a time: a line over ``MAX_RECORD_BYTES`` is skipped
    (its size said) with at most that much of it in memory."""
    records: list[SourceRecord] = []
    problems: list[ImportProblem] = []
    try:
        with path.open("rb") as f:
            number = 0
            while raw := f.readline(MAX_RECORD_BYTES + 1):
                number += 1
                where = f"{path}:{number}"
                if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
                    skipped = len(raw) + _skip_line(f)
                    problems.append(ImportProblem(where, _too_large(skipped)))
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise LogFileError(
                        f"{where}: not UTF-8 text (byte {e.start} of the line); a log is "
                        "JSON or JSONL in UTF-8"
                    ) from None
                if not line.strip():
                    continue
                try:
                    records.append(SourceRecord(where, json.loads(line)))
                except (ValueError, RecursionError) as e:
                    problems.append(ImportProblem(where, _unreadable(e)))
    except OSError as e:
        raise LogFileError(f"{path}: cannot read ({e.strerror or e})") from None
    return records, problems


def _skip_line(f: BinaryIO) -> int:
    """Read past the rest of the current line; the bytes skipped."""
    skipped = 0
    while chunk := f.readline(_CHUNK):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise LogFileError(f"{path} is a directory; give a log file (JSONL or JSON)") from None
    except OSError as e:
        raise LogFileError(f"{path}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise LogFileError(
            f"{path}: not UTF-8 text (byte {e.start}); a log is JSON or JSONL in UTF-8"
        ) from None


def _too_large(size: int) -> str:
    return (
        f"a record of {size:,} bytes, over the {MAX_RECORD_BYTES:,} one may take; skipped "
        "unread (a logged conversation takes far less: is this one record?)"
    )


_TOO_DEEP = "nested too deeply to read (thousands of levels); a log record needs a few"


def _unreadable(e: ValueError | RecursionError) -> str:
    """Why a JSON value could not be decoded, in the reader's words."""
    if isinstance(e, json.JSONDecodeError):
        return f"not valid JSON ({e.msg})"
    if isinstance(e, RecursionError):
        return _TOO_DEEP
    if "digits" in str(e):  # Python refuses to read integers past 4,300 digits
        return "not readable JSON (a number of more than 4,300 digits)"
    return f"not readable JSON ({e})"


def _whole_value(text: str, start: int) -> Any:
    try:
        value, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):  # then read line by line, each reported
        return None
    return value if not text[end:].strip(_WS) else None


def _first_line_incomplete(lines: list[str]) -> bool:
    # A pretty-printed single value: its first non-blank line is no JSON on its own.
    for line in lines:
        if line.strip():
            try:
                json.loads(line)
            except (ValueError, RecursionError):
                return True
            return False
    return False


def _read_jsonl(path: Path, lines: list[str]) -> tuple[list[SourceRecord], list[ImportProblem]]:
    records: list[SourceRecord] = []
    problems: list[ImportProblem] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(SourceRecord(f"{path}:{number}", json.loads(line)))
        except (ValueError, RecursionError) as e:
            problems.append(ImportProblem(f"{path}:{number}", _unreadable(e)))
    return records, problems


def _read_array(
    path: Path, text: str, start: int
) -> tuple[list[SourceRecord], list[ImportProblem]]:
    """The elements of the JSON array at ``start``: each is decoded from a window of at
    most ``MAX_RECORD_BYTES`` characters starting at or before it, so an element longer
    than that is refused (with the rest of the array: where it ends is unknown) without
    decoding more than the window holds. An array within the limit is one window."""
    records: list[SourceRecord] = []
    pos = _skip_ws(text, start + 1)
    index = 0
    if pos < len(text) and text[pos] == "]":
        return records, []
    window_at, window = pos, text[pos : pos + MAX_RECORD_BYTES]
    while pos < len(text):
        where = f"{path}:{_line_of(text, pos)} (element {index})"
        cut_short = window_at + len(window) < len(text)
        if cut_short and window_at + len(window) - pos < MAX_RECORD_BYTES // 2:
            window_at, window = pos, text[pos : pos + MAX_RECORD_BYTES]  # slid to here
            cut_short = window_at + len(window) < len(text)
        try:
            value, end = _DECODER.raw_decode(window, pos - window_at)
            if cut_short and end == len(window):  # a number cut at the window's end
                raise json.JSONDecodeError("runs to the window's end", window, end)
        except (ValueError, RecursionError) as e:
            cut_short = cut_short and _ran_out(e, window)
            if cut_short and window_at != pos:  # it may end past the window: from here
                window_at, window = pos, text[pos : pos + MAX_RECORD_BYTES]
                continue
            why = (
                f"an element longer than the {MAX_RECORD_BYTES:,} bytes one record may "
                "take, skipped unread"
                if cut_short
                else _unreadable(e)
            )
            return records, [ImportProblem(where, f"{why}; the rest of the array is unread")]
        records.append(SourceRecord(where, value))
        index += 1
        pos = _skip_ws(text, window_at + end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
            continue
        if pos < len(text) and text[pos] == "]":
            return records, []
        break
    where = f"{path}:{_line_of(text, min(pos, len(text)))}"
    return records, [ImportProblem(where, "the JSON array is not closed (expected ',' or ']')")]


def _ran_out(e: ValueError | RecursionError, window: str) -> bool:
    """Whether decoding failed because the window ended, not because the JSON is bad."""
    if not isinstance(e, json.JSONDecodeError):
        return False
    return e.pos >= len(window) - 1 or e.msg.startswith("Unterminated string")


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos

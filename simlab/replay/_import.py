"""Production logs into a regular run directory, so every analysis works on them.

Each imported conversation becomes one ``SessionRecord``: persona ``imported``,
goal = the task id, mode ``imported``, rep = the trial index; score and passed
from the reward (``reward >= threshold``) or the outcome label. Records that
cannot be imported are reported with ``file:line`` and skipped, never dropped
silently.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from simlab.core import Check, SessionKey, derive_seed
from simlab.replay._import_anthropic import anthropic_messages
from simlab.replay._import_openai import openai_messages
from simlab.replay._import_otel import otel_conversations
from simlab.replay._log import ImportRecordError, LogMessage, build_transcript, kind_of
from simlab.replay._options import MISSING, ImportFormat, ImportOptions, first_of
from simlab.replay._record_shape import shape_problem
from simlab.replay._source import ImportProblem, SourceRecord, read_records
from simlab.spec import CallableTargetSpec, Suite
from simlab.store import (
    RUN_FILE,
    SCHEMA_VERSION,
    RunDirError,
    SessionRecord,
    SessionWriter,
    StopReason,
    write_json,
)

MAX_TRIALS = 10_000
"""Trial indexes an import keeps: a suite's ``reps`` go up to 10,000."""
IMPORTED_PERSONA = "imported"
IMPORTED_MODE = "imported"
OUTCOME = "outcome"
"""The name of the check an imported record's outcome is stored under."""

_LINE_RE = re.compile(r":(\d+)(?: |$)")
_PASS_WORDS = frozenset(
    {"pass", "passed", "success", "succeeded", "true", "yes", "ok", "good", "1"}
)
_FAIL_WORDS = frozenset({"fail", "failed", "failure", "false", "no", "bad", "error", "0"})


@dataclass(slots=True)
class ImportedLogs:
    """What an import read: the records it made and the problems it skipped."""

    source: Path
    fmt: ImportFormat
    options: ImportOptions
    records: list[SessionRecord] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    n_values: int = 0
    """JSON values read from the file, imported or not: none means it is no log at all."""

    def summary_line(self) -> str:
        """``N imported, M skipped``."""
        return f"{len(self.records)} imported, {len(self.problems)} skipped"


@dataclass(slots=True)
class _Raw:
    location: str
    data: Any  # where the fields are looked up
    messages: list[LogMessage]


def imported_log(*_: Any) -> Any:
    """The target of an imported run: there is none to run again.

    Raises:
        RuntimeError: Always, saying what to use instead.
    """
    raise RuntimeError(
        "an imported run has no live target to run again; replay its prefixes against "
        "a target with `simlab replay RUN_DIR --target ...`"
    )


def import_logs(
    path: Path, fmt: ImportFormat, options: ImportOptions | None = None
) -> ImportedLogs:
    """Read a log file into session records.

    Args:
        path: A JSONL file, a JSON array, or (otel) one OTLP JSON export.
        fmt: ``openai``, ``anthropic`` or ``otel``.
        options: Field names and the pass threshold; defaults when None.

    Returns:
        The records in file order and every problem met, each naming
        ``file:line`` (and the array element or span) and what is wrong.

    Raises:
        LogFileError: ``path`` is a folder, unreadable or not UTF-8 text.
    """
    options = options or ImportOptions()
    out = ImportedLogs(path, fmt, options)
    sources, out.problems = read_records(path)
    out.n_values = len(sources)
    sources = _readable(sources, out.problems)
    raws = _otel_raws(sources, options, out.problems) if fmt == "otel" else []
    if fmt != "otel":
        for source in sources:
            try:
                raws.append(_raw(source, fmt, options))
            except ImportRecordError as e:
                out.problems.append(ImportProblem(source.location, str(e)))
    trials: dict[str, set[int]] = {}
    for n, raw in enumerate(raws, start=1):
        try:
            out.records.append(_record(raw, n, fmt, options, trials))
        except ImportRecordError as e:
            out.problems.append(ImportProblem(raw.location, str(e)))
        except ValidationError as e:  # a value the record model refuses, named
            out.problems.append(ImportProblem(raw.location, _invalid(e)))
    out.problems.sort(key=lambda p: _line(p.location))
    return out


def _readable(sources: list[SourceRecord], problems: list[ImportProblem]) -> list[SourceRecord]:
    """The records nothing downstream chokes on; the others become problems."""
    kept = []
    for source in sources:
        why = shape_problem(source.data)
        if why is None:
            kept.append(source)
        else:
            problems.append(ImportProblem(source.location, why))
    return kept


def _invalid(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}" if where else str(err["msg"])


def _line(location: str) -> int:
    m = _LINE_RE.search(location)
    return int(m[1]) if m else 0


def _raw(source: SourceRecord, fmt: ImportFormat, options: ImportOptions) -> _Raw:
    data = source.data
    if not isinstance(data, dict):
        raise ImportRecordError(f"a record must be a JSON object, got {kind_of(data)}")
    path, messages = first_of(data, options.paths("messages"))
    if messages is MISSING:
        raise ImportRecordError(f"no messages: looked for {_named(options.paths('messages'))}")
    try:
        if fmt == "anthropic":
            _, system = first_of(data, ("system", "request.system"))
            logged = anthropic_messages(messages, None if system is MISSING else system)
        else:
            logged = openai_messages(messages)
    except ImportRecordError as e:
        raise ImportRecordError(f"{path}: {e}") from None
    return _Raw(source.location, data, logged)


def _otel_raws(
    sources: list[SourceRecord], options: ImportOptions, problems: list[ImportProblem]
) -> list[_Raw]:
    conversations, found = otel_conversations(sources, options.group_by)
    problems.extend(found)
    raws = []
    for conv in conversations:
        try:
            raws.append(_Raw(conv.location, conv.fields, openai_messages(conv.messages)))
        except ImportRecordError as e:
            problems.append(ImportProblem(conv.location, str(e)))
    return raws


def _named(paths: tuple[str, ...]) -> str:
    return ", ".join(repr(p) for p in paths)


def _record(
    raw: _Raw, n: int, fmt: ImportFormat, options: ImportOptions, trials: dict[str, set[int]]
) -> SessionRecord:
    transcript, extras = build_transcript(raw.messages)
    task = _task_id(raw.data, n, options)
    trial = _trial(raw.data, task, options, trials)
    passed, score, detail, reward = _outcome(raw.data, options)
    failing = _failing_turn(raw.data, options, transcript.n_user_turns)
    meta: dict[str, Any] = {"source": raw.location, "format": fmt, "imported": True}
    meta.update(extras)
    if reward is not None:
        meta["reward"] = reward
    if failing is not None:
        meta["failing_turn"] = failing
    return SessionRecord(
        key=SessionKey(persona=IMPORTED_PERSONA, goal=task, mode=IMPORTED_MODE, rep=trial),
        seed=derive_seed("imported", task, trial),
        status="ok",
        # Logs do not say why a conversation ended, so no simulated reason is claimed.
        stop_reason=StopReason.LOG_ENDED,
        n_user_turns=transcript.n_user_turns,
        score=score,
        passed=passed,
        checks={OUTCOME: Check(passed=passed, detail=detail, turn=failing)},
        transcript=transcript,
        meta=meta,
    )


def _task_id(data: Any, n: int, options: ImportOptions) -> str:
    path, value = first_of(data, options.paths("task_id"))
    if value is MISSING:
        if options.explicit("task_id"):
            raise ImportRecordError(f"no task id at {path or options.task_id_field!r}")
        return f"conversation-{n}"
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise ImportRecordError(
            f"{path}: a task id must be a string or an integer, got {_short(value)}"
        )
    return str(value)


def _trial(data: Any, task: str, options: ImportOptions, trials: dict[str, set[int]]) -> int:
    seen = trials.setdefault(task, set())
    path, value = first_of(data, options.paths("trial"))
    if value is MISSING:
        if options.explicit("trial"):
            raise ImportRecordError(f"no trial index at {options.trial_field!r}")
        value = len(seen)  # numbered in file order per task
        while value in seen:
            value += 1
    elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TRIALS:
        raise ImportRecordError(
            f"{path}: a trial index must be an integer 0..{MAX_TRIALS - 1}, got {_short(value)}"
        )
    if value in seen:
        raise ImportRecordError(f"task {task!r} trial {value} appears twice; kept the first")
    seen.add(value)
    return int(value)


def _short(value: Any) -> str:
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _outcome(data: Any, options: ImportOptions) -> tuple[bool, float, str, float | None]:
    path, reward = first_of(data, options.paths("reward"))
    if reward is not MISSING:
        if isinstance(reward, bool) or not isinstance(reward, int | float):
            raise ImportRecordError(f"{path}: a reward must be a number, got {_short(reward)}")
        try:
            reward = float(reward)
        except OverflowError:
            reward = math.inf
        if not math.isfinite(reward):
            raise ImportRecordError(f"{path}: a reward must be a finite number, got {reward}")
        passed = reward >= options.threshold
        score = min(100.0, max(0.0, 100.0 * reward / options.max_reward))
        sign = ">=" if passed else "<"
        return passed, score, f"{path} {reward:g} {sign} {options.threshold:g}", float(reward)
    if options.explicit("reward"):
        raise ImportRecordError(f"no reward at {options.reward_field!r}")
    path, label = first_of(data, options.paths("label"))
    if label is MISSING:
        raise ImportRecordError(
            f"no outcome: no reward ({_named(options.paths('reward'))}) and no label "
            f"({_named(options.paths('label'))}); name one with --reward-field or --label-field"
        )
    passed = _label(path, label)
    return passed, 100.0 if passed else 0.0, f"{path} {label!r}", None


def _label(path: str, label: Any) -> bool:
    if isinstance(label, bool):
        return label
    word = str(label).strip().lower()
    if word in _PASS_WORDS:
        return True
    if word in _FAIL_WORDS:
        return False
    raise ImportRecordError(
        f"{path}: label {label!r} is neither a pass ({', '.join(sorted(_PASS_WORDS))}) "
        f"nor a fail ({', '.join(sorted(_FAIL_WORDS))})"
    )


def _failing_turn(data: Any, options: ImportOptions, n_turns: int) -> int | None:
    path, value = first_of(data, options.paths("failing_turn"))
    if value is MISSING or value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= n_turns:
        raise ImportRecordError(
            f"{path}: the failing turn must be a user turn 1..{n_turns}, got {_short(value)}"
        )
    return value


def check_run_id(run_id: str) -> str:
    """``run_id`` when it names one folder inside ``--out``, so the run lands there.

    Raises:
        ValueError: It is empty or ``.``, or holds a path separator (so an absolute
            path too), ``..`` or a NUL byte.
    """
    forbidden = {"/", os.sep, "..", "\0", *([os.altsep] if os.altsep else [])}
    if run_id in ("", ".") or any(part in run_id for part in forbidden):
        raise ValueError(
            f"run id {run_id!r} must be one folder name (no '/' or '..'); "
            "the run is written inside --out"
        )
    return run_id


def write_run(logs: ImportedLogs, out_dir: Path, run_id: str | None = None) -> Path:
    """Write ``logs`` as a new run directory under ``out_dir``; returns its path.

    Raises:
        ValueError: ``run_id`` is not a plain folder name (see ``check_run_id``).
        RunDirError: The run directory exists already or cannot be made there;
            nothing is left half-written.
    """
    now = datetime.now(UTC)
    run_id = check_run_id(run_id or f"{now:%Y%m%d-%H%M%S}-import-{secrets.token_hex(2)}")
    run_dir = out_dir / run_id
    try:
        run_dir.mkdir(parents=True, exist_ok=False)
    except FileExistsError:
        raise RunDirError(
            f"{run_dir} already exists; choose another --run-id or move it away"
        ) from None
    except NotADirectoryError:
        raise RunDirError(f"{out_dir} is not a folder; give a folder for the run") from None
    try:
        _write_files(logs, run_dir, run_id, now)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)  # no half-written run is left behind
        raise
    return run_dir


def _write_files(logs: ImportedLogs, run_dir: Path, run_id: str, now: datetime) -> None:
    tasks = sorted({r.key.goal for r in logs.records})
    suite = Suite(
        name=f"imported from {logs.source.name}",
        personas=[IMPORTED_PERSONA],
        goals=tasks or ["*"],
        reps=max((r.key.rep + 1 for r in logs.records), default=1),
        # Suite modes are full/sharded only; the records' own mode is "imported".
        target=CallableTargetSpec(ref="simlab.replay:imported_log"),
    )
    digest = hashlib.sha256(logs.source.read_bytes())
    digest.update(logs.options.model_dump_json().encode())
    info = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "created_at": now.isoformat(timespec="seconds"),
        "simlab_version": _version(),
        "config_hash": digest.hexdigest()[:16],
        "suite": suite.model_dump(mode="json"),
        "n_sessions": len(logs.records),
        "personas": [IMPORTED_PERSONA],
        "goals": tasks,
        "models": {},
        "pricing": {},
        "imported": {
            "source": str(logs.source),
            "format": logs.fmt,
            "mode": IMPORTED_MODE,
            "options": logs.options.model_dump(mode="json"),
            "imported": len(logs.records),
            "skipped": len(logs.problems),
            "problems": [str(p) for p in logs.problems],
        },
    }
    write_json(run_dir / RUN_FILE, info)
    with SessionWriter(run_dir) as writer:
        for record in logs.records:
            writer.append(record)


def import_run(
    path: Path, fmt: ImportFormat, out_dir: Path, options: ImportOptions | None = None
) -> Path:
    """Import a log file into a new run directory under ``out_dir``.

    The problems met are kept in ``run.json`` under ``imported.problems``; use
    ``import_logs`` and ``write_run`` to see them before writing.

    Returns:
        The run directory.
    """
    return write_run(import_logs(path, fmt, options), out_dir)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("simlab")
    except PackageNotFoundError:
        return "0+unknown"

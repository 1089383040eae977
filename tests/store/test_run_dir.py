import errno
import json
import os
from pathlib import Path

import pytest
from frozendict import frozendict

from simlab.core import Check, SessionKey
from simlab.report import summarize
from simlab.spec import Bucket
from simlab.store import (
    SESSIONS_FILE,
    RunDirError,
    SessionError,
    SessionRecord,
    SessionWriter,
    StopReason,
    read_run_info,
    read_sessions,
    read_sessions_locked,
    slim_record,
    write_atomic,
    write_json,
)

BUCKETS = [Bucket(name="2-4", min=2, max=4), Bucket(name="5+", min=5)]


def record(rep: int) -> SessionRecord:
    return SessionRecord(
        key=SessionKey(persona="p", goal="g", mode="full", rep=rep),
        seed=rep,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=2,
        score=100.0,
        passed=True,
    )


def test_round_trip(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        for rep in range(3):
            w.append(record(rep))
    got = read_sessions(tmp_path)
    assert [r.key.rep for r in got.records] == [0, 1, 2]
    assert got.records[0] == record(0)
    assert not got.torn


def test_torn_last_line_is_dropped_and_truncated_before_appending(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
    path = tmp_path / SESSIONS_FILE
    good = path.stat().st_size
    with path.open("a") as f:
        f.write('{"schema_version": 1, "key": {"pers')  # killed mid-write
    got = read_sessions(tmp_path)
    assert [r.key.rep for r in got.records] == [0]
    assert got.torn and got.good_bytes == good
    with SessionWriter(tmp_path, truncate_to=got.good_bytes) as w:
        w.append(record(1))
    again = read_sessions(tmp_path)
    assert [r.key.rep for r in again.records] == [0, 1] and not again.torn


def test_corrupt_middle_line_is_reported_with_its_number(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
    with (tmp_path / SESSIONS_FILE).open("a") as f:
        f.write("not json\n")
    with SessionWriter(tmp_path) as w:
        w.append(record(1))
    with pytest.raises(RunDirError, match=r"sessions.jsonl:2: not JSON \(.* column 2\)"):
        read_sessions(tmp_path)


def test_run_info_from_the_future_is_refused(tmp_path: Path) -> None:
    write_json(tmp_path / "run.json", {"schema_version": 999, "run_id": "r", "suite": {}})
    with pytest.raises(RunDirError, match="newer than this simlab reads"):
        read_run_info(tmp_path)


def test_missing_run_json_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match=r"is .* a simlab run directory"):
        read_run_info(tmp_path)


def test_a_key_written_twice_is_read_once(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
        w.append(record(1))
        w.append(record(0))  # e.g. two processes resumed the same run
    got = read_sessions(tmp_path)
    assert [r.key.rep for r in got.records] == [0, 1]
    assert got.duplicates == 1


def test_only_one_writer_per_run(tmp_path: Path) -> None:
    with SessionWriter(tmp_path), pytest.raises(RunDirError, match="another simlab process"):
        SessionWriter(tmp_path)
    with SessionWriter(tmp_path) as w:  # released on close
        w.append(record(0))


def test_resume_takes_the_lock_before_reading_and_hands_it_to_the_writer(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
    lock, got = read_sessions_locked(tmp_path)
    assert [r.key.rep for r in got.records] == [0]
    # a second resume cannot even read: it says who holds the run
    with pytest.raises(RunDirError, match=rf"another simlab process \(pid {os.getpid()}\)"):
        read_sessions_locked(tmp_path)
    with SessionWriter(tmp_path, lock=lock) as w:  # the writer keeps the resume's lock
        w.append(record(1))
    assert lock.closed  # the writer released it on close
    lock, got = read_sessions_locked(tmp_path)
    lock.close()
    assert [r.key.rep for r in got.records] == [0, 1]


def test_run_json_without_its_fields_is_named(tmp_path: Path) -> None:
    write_json(tmp_path / "run.json", {"schema_version": 1})
    with pytest.raises(RunDirError, match="missing run_id, suite"):
        read_run_info(tmp_path)
    write_json(tmp_path / "run.json", [1, 2])
    with pytest.raises(RunDirError, match="expected a JSON object"):
        read_run_info(tmp_path)


def error_record(rep: int, cost_usd: float = 0.0) -> SessionRecord:
    return SessionRecord(
        key=SessionKey(persona="p", goal="g", mode="full", rep=rep),
        seed=rep,
        status="error",
        stop_reason=StopReason.INFRA_ERROR,
        n_user_turns=1,
        cost_usd=cost_usd,
        error="provider outage",
    )


def test_a_later_record_supersedes_an_error_record_of_its_key(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(error_record(0, cost_usd=0.25))  # line 1: the outage
        w.append(record(1))  # line 2
        w.append(error_record(0, cost_usd=0.5))  # line 3: retried, still down
        w.append(record(0))  # line 4: retried, graded
    got = read_sessions(tmp_path)
    assert [(r.key.rep, r.status) for r in got.records] == [(1, "ok"), (0, "ok")]
    assert got.lines == [2, 4]  # in file order, each at the line of its outcome
    assert [r.cost_usd for r in got.replaced] == [0.25, 0.5] and got.duplicates == 0
    assert got.cost_usd == 0.75  # superseded sessions were paid for all the same

    summary = summarize(got.records, BUCKETS, seed=1, replaced=got.replaced)
    assert summary["cost"]["total_usd"] == 0.75 and summary["cost"]["replaced_sessions"] == 2
    assert summary["overall"]["n_errors"] == 0  # the outcome is the retry's, not the outage's


def test_a_key_that_errors_on_every_retry_reads_as_its_last_error(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(error_record(0))
        w.append(error_record(0).model_copy(update={"error": SessionError(message="still down")}))
    got = read_sessions(tmp_path)
    assert [r.error.message for r in got.records if r.error] == ["still down"]
    assert got.lines == [2] and len(got.replaced) == 1


def test_a_graded_record_is_never_superseded(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
        w.append(error_record(0))  # a later error must not undo a verdict
        w.append(record(0).model_copy(update={"passed": False, "score": 0.0}))
    got = read_sessions(tmp_path)
    assert len(got.records) == 1
    assert got.records[0] == record(0) and got.lines == [1]
    assert got.duplicates == 2 and got.replaced == []


def test_a_record_from_a_newer_schema_is_refused_with_its_line(tmp_path: Path) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
    newer = record(1).model_dump(mode="json") | {"schema_version": 99}
    with (tmp_path / SESSIONS_FILE).open("a") as f:
        f.write(json.dumps(newer) + "\n")
    with pytest.raises(RunDirError, match=r"sessions.jsonl:2: .*newer than this simlab"):
        read_sessions(tmp_path)


# ---------------------------------------------------------------- bad files, clear errors


def test_write_atomic_onto_a_folder_names_it_and_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "report.md").mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        write_atomic(tmp_path / "report.md", "text")
    assert caught.value.filename == str(tmp_path / "report.md")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


@pytest.mark.parametrize("failure", [OSError(errno.EIO, "I/O error"), KeyboardInterrupt()])
def test_write_atomic_cleans_up_when_the_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException
) -> None:
    def fail(fd: int) -> None:
        raise failure

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(type(failure)):
        write_atomic(tmp_path / "summary.json", "{}")
    assert list(tmp_path.iterdir()) == []


def test_sessions_file_that_is_a_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / SESSIONS_FILE).mkdir()
    with pytest.raises(RunDirError, match=r"sessions.jsonl is a directory, not a file"):
        read_sessions(tmp_path)


def test_run_dir_that_is_missing_or_a_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match=r"missing not found: no such run directory"):
        read_run_info(tmp_path / "missing")
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(RunDirError, match=r"a_file is not a directory"):
        read_run_info(tmp_path / "a_file")


def test_run_json_not_utf8_or_unreadable_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "run.json").write_bytes(b'{"run_id": "\xff"}')
    with pytest.raises(RunDirError, match=r"run.json: not UTF-8 text \(byte 12\)"):
        read_run_info(tmp_path)

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_text", denied)
    with pytest.raises(RunDirError, match=r"run.json: cannot read \(Permission denied\)"):
        read_run_info(tmp_path)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("", r"sessions.jsonl:2: blank line"),
        ("{not json", r"sessions.jsonl:2: not JSON \(key must be a string"),
        (
            record(5).model_dump_json().replace('"rep":5', '"rep":"five"'),
            r"sessions.jsonl:2: not a session record: key.rep: Input should be a valid integer",
        ),
    ],
)
def test_a_bad_line_says_which_field_and_what(tmp_path: Path, line: str, why: str) -> None:
    with SessionWriter(tmp_path) as w:
        w.append(record(0))
    with (tmp_path / SESSIONS_FILE).open("a") as f:
        f.write(line + "\n")
    with SessionWriter(tmp_path) as w:
        w.append(record(1))
    with pytest.raises(RunDirError, match=why):
        read_sessions(tmp_path)


def test_a_slim_record_keeps_each_checks_verdict_even_one_copied_past_validation() -> None:
    made = Check(name="tone", passed=True, score=0.5, detail="why", turn=2)
    # a grader's own check, copied with a score no validation would let through
    changed = Check(name="odd", passed=False, detail="why").model_copy(update={"score": 7.0})
    full = record(0).model_copy(update={"checks": frozendict({"tone": made, "odd": changed})})
    slim = slim_record(full)
    assert [(n, c.passed, c.score, c.detail, c.turn) for n, c in slim.checks.items()] == [
        ("tone", True, 0.5, "", None),
        ("odd", False, 7.0, "", None),
    ]
    assert [c.name for c in slim.checks.values()] == ["tone", "odd"]

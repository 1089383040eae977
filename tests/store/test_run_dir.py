from pathlib import Path

import pytest

from simlab.store import (
    SESSIONS_FILE,
    RunDirError,
    SessionKey,
    SessionRecord,
    SessionWriter,
    StopReason,
    read_run_info,
    read_sessions,
    write_json,
)


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
    with pytest.raises(RunDirError, match=r"sessions.jsonl:2: not a session record"):
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


def test_run_json_without_its_fields_is_named(tmp_path: Path) -> None:
    write_json(tmp_path / "run.json", {"schema_version": 1})
    with pytest.raises(RunDirError, match="missing run_id, suite"):
        read_run_info(tmp_path)
    write_json(tmp_path / "run.json", [1, 2])
    with pytest.raises(RunDirError, match="expected a JSON object"):
        read_run_info(tmp_path)

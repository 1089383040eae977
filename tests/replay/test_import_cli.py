"""``simlab import``: problems with file:line, the summary line, a run directory and report."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.replay import import_cli, replay_cli
from simlab.store import read_run_info, read_sessions

DATA = Path(__file__).parent / "data"


def test_import_cli_reports_problems_and_writes_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = import_cli(
        [str(DATA / "openai_bad.jsonl"), "--out", str(tmp_path), "--run-id", "r1", "--quiet"]
    )
    assert code == 0
    err = capsys.readouterr().err
    assert f"skipped {DATA / 'openai_bad.jsonl'}:2: not valid JSON" in err
    assert "2 imported, 8 skipped" in err
    run_dir = tmp_path / "r1"
    assert len(read_sessions(run_dir).records) == 2
    assert len((read_run_info(run_dir).imported or {})["problems"]) == 8
    assert (run_dir / "summary.json").exists() and (run_dir / "report.md").exists()


def test_import_cli_field_options_and_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(DATA / "openai_custom.json"), "--out", str(tmp_path), "--quiet"]
    assert import_cli([*argv, "--messages-field", "conversation.msgs"]) == 1  # no outcome found
    assert "0 imported, 5 skipped" in capsys.readouterr().err
    options = ["--task-id-field", "meta.task", "--trial-field", "meta.attempt"]
    options += ["--label-field", "meta.verdict", "--failing-turn-field", "meta.bad_turn"]
    assert import_cli([*argv, "--messages-field", "conversation.msgs", *options]) == 0
    assert "3 imported, 2 skipped" in capsys.readouterr().err
    assert import_cli([str(tmp_path / "nope.jsonl")]) == 2


def test_replay_an_imported_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        import_cli([str(DATA / "prefix_log.jsonl"), "--out", str(tmp_path), "--run-id", "p"]) == 0
    )
    capsys.readouterr()
    assert replay_cli([str(tmp_path / "p"), "--target", "reference:v2", "--k", "4"]) == 0
    out = capsys.readouterr().out
    assert "imported_one_way_late_imported_0_turn5" in out
    # v2 offers a flight that keeps the constraints and waits: not a break, not "kept"
    assert "reproduced 0 of 1 recorded constraint breaks" in out


def test_write_run_refuses_a_taken_folder_and_leaves_nothing_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simlab.replay import import_logs, write_run
    from simlab.store import RunDirError, SessionWriter

    logs = import_logs(DATA / "prefix_log.jsonl", "openai")
    (tmp_path / "taken").mkdir()
    with pytest.raises(RunDirError, match="taken already exists"):
        write_run(logs, tmp_path, "taken")

    def disk_full(self: SessionWriter, record: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(SessionWriter, "append", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_run(logs, tmp_path, "new")
    assert not (tmp_path / "new").exists()


def test_import_writes_the_reports_of_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from simlab.cli import main

    log = DATA / "prefix_log.jsonl"
    assert import_cli([str(log), "--out", str(tmp_path), "--run-id", "r", "--quiet"]) == 0
    run_dir = tmp_path / "r"
    written = {name: (run_dir / name).read_text() for name in ("report.md", "summary.json")}
    assert written["report.md"].startswith("# imported r\n")
    assert "<html" in (run_dir / "report.html").read_text()
    assert main(["report", str(run_dir)]) == 0  # re-rendered from disk: the same files
    assert {name: (run_dir / name).read_text() for name in written} == written

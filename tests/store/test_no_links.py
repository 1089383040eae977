"""A run directory's files are never written through a symbolic link."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.store import RunDirError, RunLock, SessionWriter, read_sessions, write_atomic


def test_a_lock_link_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / ".lock").symlink_to(victim)
    with pytest.raises(RunDirError, match=r"\.lock is a symbolic link"):
        RunLock(run_dir)
    with pytest.raises(RunDirError, match="symbolic link"):
        SessionWriter(run_dir)
    assert victim.read_text(encoding="utf-8") == "keep me\n"


def test_a_dangling_lock_link_creates_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / ".lock").symlink_to(tmp_path / "would-be-created")
    with pytest.raises(RunDirError):
        RunLock(run_dir)
    assert not (tmp_path / "would-be-created").exists()


def test_a_sessions_link_is_refused_for_writing_and_reading(tmp_path: Path) -> None:
    victim = tmp_path / "elsewhere.jsonl"
    victim.write_bytes(b"")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "sessions.jsonl").symlink_to(victim)
    with pytest.raises(RunDirError, match="symbolic link"):
        SessionWriter(run_dir, truncate_to=0)
    with pytest.raises(RunDirError, match="symbolic link"):
        read_sessions(run_dir)
    RunLock(run_dir).close()  # the failed writer released its lock


def test_a_report_written_over_a_link_replaces_the_link_not_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("keep me\n", encoding="utf-8")
    (tmp_path / "report.md").symlink_to(victim)
    (tmp_path / ".report.md.tmp").symlink_to(victim)  # a planted temporary file too
    write_atomic(tmp_path / "report.md", "# report\n")
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert not (tmp_path / "report.md").is_symlink()
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == "# report\n"

"""A user's own agent, diagnosed: the cause counts reach report.md, report.html and the
terminal, with no hidden truth needed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import simlab
from simlab import cli
from simlab.spec import starter_dir

FORGETFUL = '''from agent import reply as careful


def reply(messages, ctx=None):
    """The starter agent, but it forgets the middle of long conversations."""
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if len(users) > 3:
        messages = messages[: users[1]] + messages[users[-1] :]
    return careful(messages, ctx)
'''


def diagnosed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, int]:
    """The starter project against the forgetful agent, diagnosed and reported: its run
    folder and how many of its graded sessions failed."""
    project = tmp_path / "shop"
    shutil.copytree(starter_dir(), project)
    (project / "forgetful.py").write_text(FORGETFUL)
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    result = simlab.run("simlab.yaml", target="forgetful:reply", reps=2, progress=False)
    failed = sum(1 for r in result.records if r.status == "ok" and not r.passed)
    assert failed > 0
    run_dir = result.paths.run_dir.resolve()
    assert cli.main(["diagnose", str(run_dir)]) == 0
    assert cli.main(["report", str(run_dir)]) == 0
    return run_dir, failed


def test_cause_counts_of_a_users_agent_are_in_every_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, failed = diagnosed_run(tmp_path, monkeypatch)
    terminal = capsys.readouterr().out  # simlab report's terminal report
    title = f"Diagnosed causes of {failed} failed sessions"
    assert title in terminal
    markdown = (run_dir / "report.md").read_text()
    assert f"## {title}" in markdown
    assert "| Cause | n | Share of failures [95% CI] | Verified |" in markdown
    assert f"| all | {failed} | 100% |" in markdown
    assert title in (run_dir / "report.html").read_text()

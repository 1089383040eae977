"""The in-process ``simlab`` of the CLI tests answers as the command does in a process."""

import os
import sys
import types
from pathlib import Path

import pytest
from run_simlab import init_project, simlab, simlab_subprocess


@pytest.mark.parametrize(
    "args",
    [("--version",), ("run", "--reps", "0"), ("validate", "nowhere.yaml"), ("no-such-command",)],
    ids=["version", "usage error", "missing file", "unknown command"],
)
def test_exit_code_and_output_are_the_processs(tmp_path: Path, args: tuple[str, ...]) -> None:
    here, there = simlab(*args, cwd=tmp_path), simlab_subprocess(*args, cwd=tmp_path)
    assert (here.returncode, here.stdout, here.stderr) == (
        there.returncode,
        there.stdout,
        there.stderr,
    )


def test_folder_environment_and_streams_are_put_back(tmp_path: Path) -> None:
    before = (os.getcwd(), dict(os.environ))
    ran = simlab("validate", cwd=tmp_path, env={**os.environ, "SIMLAB_RUNNER_PROBE": "1"})
    assert ran.returncode == 0, ran.stderr
    assert (os.getcwd(), dict(os.environ)) == before


def test_each_projects_agent_module_is_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two projects, each with its own agent.py: the second run must not reuse the first,
    # nor an agent module some earlier in-process code left imported
    first, second = init_project(tmp_path, "a"), init_project(tmp_path, "b")
    earlier = types.ModuleType("agent")
    earlier.__file__ = str(tmp_path / "elsewhere" / "agent.py")
    monkeypatch.setitem(sys.modules, "agent", earlier)
    broken = "def reply(messages, ctx):\n    raise RuntimeError('the second agent')\n"
    (second / "agent.py").write_text(broken, encoding="utf-8")
    assert simlab("run", "--quiet", cwd=first).returncode == 0
    ran = simlab("run", "--quiet", cwd=second)
    (run_dir,) = (second / "results").iterdir()
    assert "the second agent" in (run_dir / "sessions.jsonl").read_text(encoding="utf-8"), (
        ran.stderr
    )
    assert sys.modules["agent"] is earlier  # what the caller had is put back

"""``python -m simlab`` is the ``simlab`` command: same parser, same exit codes, same output."""

import subprocess
import sys
from pathlib import Path

from run_simlab import simlab

import simlab as package

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_help_names_the_simlab_command() -> None:
    proc = run("-m", "simlab", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: simlab ")
    assert proc.stdout == simlab("--help").stdout  # the console script's main


def test_a_command_runs_with_its_exit_code(tmp_path: Path) -> None:
    proc = run("-m", "simlab", "validate")
    assert proc.returncode == 0, proc.stderr
    assert "files valid" in proc.stderr
    bad = tmp_path / "personas" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text("id: bad\nname: Bad\nlanguage: fr\n", encoding="utf-8")
    proc = run("-m", "simlab", "validate", str(bad))
    assert proc.returncode == 2
    assert f"{bad}:3: language:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_delegated_command_and_a_usage_error() -> None:
    proc = run("-m", "simlab", "runs", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: simlab runs" in proc.stdout
    proc = run("-m", "simlab", "no-such-command")
    assert proc.returncode == 2
    assert "invalid choice: 'no-such-command'" in proc.stderr


def test_version_says_the_installed_version() -> None:
    proc = run("-m", "simlab", "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"simlab {package.__version__}"

"""The ``simlab`` command run as its user runs it: a subprocess of this interpreter.

Shared by the tests that drive the CLI on real files (``pythonpath = ["tests"]`` in
``pyproject.toml`` makes it importable under ``--import-mode=importlib``).
"""

import subprocess
import sys
from pathlib import Path


def simlab(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m simlab.cli ARGS`` in ``cwd`` (with ``env``, else this process's
    environment); its exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "simlab.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def init_project(parent: Path, name: str = "proj") -> Path:
    """A fresh ``simlab init`` project in ``parent/name`` (``target: agent:reply``, its
    domain ``domains/shop`` named by its suite)."""
    made = simlab("init", name, cwd=parent)
    assert made.returncode == 0, made.stderr
    return parent / name

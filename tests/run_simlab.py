"""The ``simlab`` command as the CLI tests drive it: in this process, or as a subprocess.

``simlab()`` calls ``simlab.cli.main`` in this interpreter, with the folder, the
environment, ``sys.argv`` and the standard streams a subprocess would have had, and
returns the same ``CompletedProcess`` (exit code, stdout, stderr): the command's whole
behaviour without paying a Python start-up and simlab's imports per call.
``simlab_subprocess()`` starts a real process, for what only a process shows: signals,
``kill -9`` and resume, ``python -m simlab``, a target that wedges its process.

Shared by the tests that drive the CLI on real files (``pythonpath = ["tests"]`` in
``pyproject.toml`` makes it importable under ``--import-mode=importlib``).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import subprocess
import sys
import sysconfig
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path

_ONE_AT_A_TIME = threading.Lock()
"""The working folder, the environment and the streams are the process's own."""

_INSTALLED = tuple(
    str(Path(p).resolve()) for p in {*sysconfig.get_paths().values(), sys.prefix, sys.base_prefix}
)
_SIMLAB = str(Path(__file__).resolve().parents[1] / "simlab")


def simlab(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``simlab ARGS`` run in this process in ``cwd`` (else the current folder), with
    ``env`` (else this process's environment) and stdin empty; its exit code, stdout
    and stderr.

    An exception escaping ``main`` is a traceback on stderr and exit code 1, as in a
    process. Modules of the user's folders (a target's ``agent.py``) are the command's
    own: those imported before are out of sight during the call, those it imported are
    forgotten afterwards, so each project's ``agent`` is its own.
    """
    from simlab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        _ONE_AT_A_TIME,
        _as_a_process(["simlab", *args], cwd, env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse's usage errors, --help, --version
            code = _exit_code(e)
        except Exception:  # what the interpreter would print and exit 1 with
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(["simlab", *args], code, out.getvalue(), err.getvalue())


def simlab_subprocess(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m simlab.cli ARGS`` as a subprocess of this interpreter in ``cwd`` (with
    ``env``, else this process's environment); its exit code, stdout and stderr."""
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


def _exit_code(e: SystemExit) -> int:
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return 1


@contextlib.contextmanager
def _as_a_process(argv: list[str], cwd: Path | None, env: dict[str, str] | None) -> Iterator[None]:
    """This process's folder, environment, argv, stdin and import path as a subprocess
    started with them would have them; all put back on the way out."""
    saved_cwd, saved_env = os.getcwd(), dict(os.environ)
    saved_argv, saved_stdin = sys.argv, sys.stdin
    saved_path = list(sys.path)
    # modules of user folders that in-process code imported before (a target's
    # agent.py, through simlab.run or an earlier call) are not in a new process
    earlier = {n: m for n, m in sys.modules.items() if not _shared_module(m)}
    for name in earlier:
        del sys.modules[name]
    saved_modules = set(sys.modules)
    os.chdir(saved_cwd if cwd is None else cwd)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
        # a subprocess would find modules on the PYTHONPATH it is given
        given = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:0] = [p for p in given if p not in sys.path]
    # its output is a pipe, 80 columns, even when pytest -s runs in a wider terminal
    os.environ.setdefault("COLUMNS", "80")
    sys.argv, sys.stdin = argv, io.StringIO()
    importlib.invalidate_caches()  # folders written since the last import are seen
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv, sys.stdin = saved_argv, saved_stdin
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if not _shared_module(sys.modules[name]):
                del sys.modules[name]
        sys.modules.update(earlier)


def _shared_module(module: object) -> bool:
    """A module of simlab or of the installation (kept: importing it again would make a
    second copy of its classes), not one of a test's folders."""
    file = getattr(module, "__file__", None)
    if file is None:
        return True
    where = str(Path(file).resolve())
    return where.startswith(_SIMLAB) or where.startswith(_INSTALLED)

"""Run the real CLI on one fuzzed input at a time, watching exit code, time and memory.

In-process (``simlab.cli.main``) for the thousands of cases a fuzz needs: an
exception escaping ``main`` is a traceback the user would see; a case is stopped
by SIGALRM after ``TIME_LIMIT_S``; the process's peak RSS is read after each
case, so one case blowing past ``MEMORY_LIMIT_MB`` shows. A smaller sample goes
through a subprocess (``python -m simlab.cli``), whose own peak RSS is measured.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from simlab.cli import main

ROOT = Path(__file__).resolve().parents[2]
TIME_LIMIT_S = 10.0
MEMORY_LIMIT_MB = 500.0
ALLOWED_EXITS = frozenset({0, 1, 2})


class CaseTimeout(BaseException):
    """A case ran past ``TIME_LIMIT_S`` (a BaseException so nothing in simlab catches it)."""


@dataclass(slots=True)
class Outcome:
    """What one CLI call did."""

    code: int | None
    output: str
    seconds: float
    peak_mb: float
    traceback: str | None = None

    def trouble(self) -> str | None:
        """Why this outcome breaks the rules (traceback, exit code, time, memory), or None."""
        if self.traceback is not None:
            return f"traceback:\n{self.traceback}"
        if self.code not in ALLOWED_EXITS:
            return f"exit {self.code}:\n{self.output[-2000:]}"
        if "Traceback (most recent call last)" in self.output:
            return f"a traceback was printed:\n{self.output[-3000:]}"
        if self.seconds > TIME_LIMIT_S:
            return f"took {self.seconds:.1f} s"
        if self.peak_mb > MEMORY_LIMIT_MB:
            return f"peak memory {self.peak_mb:.0f} MB"
        return None


def _status_mb(field: str, status: str | None = None) -> float:
    text = status if status is not None else Path("/proc/self/status").read_text()
    m = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(m[1]) / 1024 if m else 0.0


def _reset_peak() -> float:
    """Reset this process's peak RSS to its current RSS (Linux >= 4.0); that RSS in MB."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    return _status_mb("VmRSS")


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise CaseTimeout


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_in_process(argv: Sequence[str]) -> Outcome:
    """``simlab ARGV`` through ``simlab.cli.main`` in this process."""
    buffer = io.StringIO()
    code: int | None = None
    caught: str | None = None
    base = _reset_peak()
    start = time.perf_counter()
    try:
        with (
            _time_limit(TIME_LIMIT_S + 5),
            contextlib.redirect_stdout(buffer),
            contextlib.redirect_stderr(buffer),
        ):
            code = main(list(argv))
    except CaseTimeout:
        caught = None
        code = None
        buffer.write(f"\n[stopped after {TIME_LIMIT_S + 5:.0f} s]")
    except SystemExit as e:  # argparse's own exit for a bad option
        code = e.code if isinstance(e.code, int) else 2
    except BaseException:  # any escape is the traceback a user would see
        caught = traceback.format_exc()
    seconds = time.perf_counter() - start
    if code is None and caught is None:
        seconds = max(seconds, TIME_LIMIT_S + 5)
    grown = _status_mb("VmHWM") - base  # what this case added to the process
    return Outcome(code, buffer.getvalue(), seconds, grown, caught)


# The child reports its own peak (VmHWM): ru_maxrss of a forked child counts the parent's pages.
_CHILD = (
    "import atexit, runpy, sys\n"
    "report = sys.argv[1]\n"
    "atexit.register(lambda: open(report, 'w').write(open('/proc/self/status').read()))\n"
    "sys.argv = ['simlab', *sys.argv[2:]]\n"
    "runpy.run_module('simlab.cli', run_name='__main__', alter_sys=True)\n"
)


def run_subprocess(argv: Sequence[str], cwd: Path | None = None) -> Outcome:
    """``python -m simlab.cli ARGV`` in a child process, with its own peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryFile() as out:
        report = Path(scratch) / "status"
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(report), *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd,
        )
        deadline = start + TIME_LIMIT_S + 20  # interpreter start-up on a busy machine
        try:
            code: int | None = child.wait(timeout=deadline - start)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            code = None
        seconds = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        peak = _status_mb("VmHWM", report.read_text()) if report.exists() else 0.0
    return Outcome(code, text, seconds, peak)


@dataclass(slots=True)
class Tally:
    """What a fuzz run saw: cases, exit codes, slowest case, peak memory, troubles."""

    name: str
    cases: int = 0
    codes: Counter[int | None] = field(default_factory=Counter)
    max_seconds: float = 0.0
    max_peak_mb: float = 0.0
    troubles: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome, case: str) -> str | None:
        """Count ``outcome``; why it breaks the rules (also kept), or None."""
        self.cases += 1
        self.codes[outcome.code] += 1
        self.max_seconds = max(self.max_seconds, outcome.seconds)
        self.max_peak_mb = max(self.max_peak_mb, outcome.peak_mb)
        trouble = outcome.trouble()
        if trouble is not None:
            self.troubles.append(f"{case}: {trouble}")
        return trouble

    def line(self) -> str:
        """One line for the test log: the figures the issue asks for."""
        codes = ", ".join(f"exit {c}: {n}" for c, n in sorted(self.codes.items(), key=str))
        return (
            f"{self.name}: {self.cases} cases ({codes}); slowest {self.max_seconds:.2f} s; "
            f"peak RSS {self.max_peak_mb:.0f} MB; {len(self.troubles)} troubles"
        )

"""Run the real CLI on one fuzzed input at a time, watching exit code, time and memory.

In-process (``simlab.cli.main``) for the thousands of cases a fuzz needs: an
exception escaping ``main`` is a traceback the user would see; a case may use
``TIME_LIMIT_S`` of CPU (the machine is shared: wall-clock time measures the
neighbours too) and is stopped by SIGALRM as hung after ``HANG_LIMIT_S``; the
process's peak RSS growth is read after each case, so one case blowing past
``MEMORY_LIMIT_MB`` shows. A smaller sample goes through a subprocess
(``python -m simlab.cli``), whose own CPU time and peak RSS are measured.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import resource
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
"""CPU seconds a case may use: the work it needs, whatever else the shared machine runs."""
HANG_LIMIT_S = 60.0
"""Wall-clock seconds after which a case is stopped as hung."""
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
    cpu_seconds: float
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
        if self.cpu_seconds > TIME_LIMIT_S or self.seconds > HANG_LIMIT_S:
            return f"took {self.cpu_seconds:.1f} s of CPU, {self.seconds:.1f} s of wall clock"
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
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        with (
            _time_limit(HANG_LIMIT_S),
            contextlib.redirect_stdout(buffer),
            contextlib.redirect_stderr(buffer),
        ):
            code = main(list(argv))
    except CaseTimeout:
        caught = None
        code = None
        buffer.write(f"\n[stopped after {HANG_LIMIT_S:.0f} s]")
    except SystemExit as e:  # argparse's own exit for a bad option
        code = e.code if isinstance(e.code, int) else 2
    except BaseException:  # any escape is the traceback a user would see
        caught = traceback.format_exc()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if code is None and caught is None:
        seconds = max(seconds, HANG_LIMIT_S + 1)
    grown = _status_mb("VmHWM") - base  # what this case added to the process
    return Outcome(code, buffer.getvalue(), seconds, cpu, grown, caught)


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
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(report), *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd,
        )
        deadline = start + HANG_LIMIT_S
        try:
            code: int | None = child.wait(timeout=deadline - start)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            code = None
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # one child at a time: its CPU
        cpu = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        peak = _status_mb("VmHWM", report.read_text()) if report.exists() else 0.0
    return Outcome(code, text, seconds, cpu, peak)


@dataclass(slots=True)
class Tally:
    """What a fuzz run saw: cases, exit codes, slowest case, peak memory, troubles."""

    name: str
    cases: int = 0
    codes: Counter[int | None] = field(default_factory=Counter)
    max_seconds: float = 0.0
    max_cpu_seconds: float = 0.0
    max_peak_mb: float = 0.0
    troubles: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome, case: str) -> str | None:
        """Count ``outcome``; why it breaks the rules (also kept), or None."""
        self.cases += 1
        self.codes[outcome.code] += 1
        self.max_seconds = max(self.max_seconds, outcome.seconds)
        self.max_cpu_seconds = max(self.max_cpu_seconds, outcome.cpu_seconds)
        self.max_peak_mb = max(self.max_peak_mb, outcome.peak_mb)
        trouble = outcome.trouble()
        if trouble is not None:
            self.troubles.append(f"{case}: {trouble}")
        return trouble

    def line(self) -> str:
        """One line for the test log: the figures the issue asks for."""
        codes = ", ".join(f"exit {c}: {n}" for c, n in sorted(self.codes.items(), key=str))
        return (
            f"{self.name}: {self.cases} cases ({codes}); slowest {self.max_cpu_seconds:.2f} s CPU, "
            f"{self.max_seconds:.2f} s wall; "
            f"peak RSS {self.max_peak_mb:.0f} MB; {len(self.troubles)} troubles"
        )

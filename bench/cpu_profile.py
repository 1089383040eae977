"""A sampling profiler on CPU time, for the benchmarks (no dependency, Linux/macOS).

``SIGPROF`` fires every ``interval`` seconds of this process's CPU time (user +
system), so other load on a shared machine neither adds samples nor skews them,
and the code runs at full speed (cProfile's per-call hook inflates small
functions several times over). Each sample records the main thread's stack;
a function's cumulative share is the share of samples with it on the stack.

    with CpuProfile() as prof:
        work()
    print(prof.table(top=25))
"""

from __future__ import annotations

import signal
import sys
from collections import Counter
from types import FrameType, TracebackType


class CpuProfile:
    """Samples the main thread's stack every ``interval`` CPU-seconds."""

    def __init__(self, interval: float = 0.0005) -> None:
        self.interval = interval
        self.samples = 0
        self.own: Counter[str] = Counter()
        self.cumulative: Counter[str] = Counter()

    def _sample(self, signum: int, frame: FrameType | None) -> None:
        self.samples += 1
        seen: set[str] = set()
        top = True
        while frame is not None:
            code = frame.f_code
            name = f"{_short(code.co_filename)}:{code.co_firstlineno}({code.co_name})"
            if top:
                self.own[name] += 1
                top = False
            if name not in seen:
                seen.add(name)
                self.cumulative[name] += 1
            frame = frame.f_back

    def __enter__(self) -> CpuProfile:
        self._old = signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, self._old)

    def table(self, top: int = 25, by: str = "cumulative") -> str:
        """The ``top`` functions by cumulative (or ``own``) share of CPU samples."""
        counts = self.cumulative if by == "cumulative" else self.own
        n = max(self.samples, 1)
        lines = [f"  {'cum':>6} {'own':>6}  function   ({self.samples} samples of CPU time)"]
        for name, count in counts.most_common(top):
            lines.append(f"  {count / n:6.1%} {self.own[name] / n:6.1%}  {name}")
        return "\n".join(lines)


def _short(path: str) -> str:
    for marker in ("/simlab/", "/site-packages/", "/lib/python"):
        if marker in path:
            return path[path.index(marker) + 1 :]
    return path.rsplit("/", 1)[-1] if "/" in path else path


if __name__ == "__main__":  # pragma: no cover - a smoke run
    with CpuProfile() as p:
        sum(i * i for i in range(3_000_000))
    print(p.table(5), file=sys.stderr)

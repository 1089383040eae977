"""How long, how much disk and how much memory a large run will take, before it starts.

``simlab run --reps 10000`` plans 1.44 million sessions; a run that size should
be a decision, not a typo. The estimate comes from a quick measure: a few of
the run's own sessions played here, one at a time, without writing them, when
every role is offline (the scripted user and a simlab or Python target). A run
with an LLM or HTTP role is not sampled: that would spend money before anyone
said yes.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from simlab.engine._expand import SessionJob
from simlab.engine._roles import build_roles
from simlab.engine._run import RunPlan
from simlab.engine._session import SessionLimits, run_session
from simlab.store import SessionRecord, record_line

CONFIRM_ABOVE = 100_000
"""Sessions past which ``simlab run`` asks before starting (``--confirm-above``)."""

MEMORY_BASE_MB = 400
MEMORY_PER_SESSION_KB = 5.5
"""What a run holds: about 400 MB whatever its size (the process, the report's
viewer) and about 5.5 KB per session (``bench/run_memory.py``; 1.1 GB at its peak for
133,440 sessions of the default suite, docs/scale.md)."""

WARM_UP_S = 2.0
SAMPLE_S = 5.0
"""The most seconds the estimate's untimed warm-up and its timed sample each take."""

REPORTS_PER_PLAY = (1.2, 1.6)
"""The reports written at a run's end take this many times the sessions' own time:
1.6 at 13,440 sessions of the default suite and 1.2 at 133,440 (docs/scale.md), a
part of their work being per run (the bootstrap's cells, the page), not per session."""


@dataclass(frozen=True, slots=True)
class RunEstimate:
    """What a run is expected to take."""

    n_sessions: int
    seconds: float | None
    """None when the run was not sampled (an LLM or HTTP role)."""
    disk_bytes: int | None
    memory_mb: float
    sampled: int

    def describe(self) -> str:
        """One paragraph for the terminal."""
        mem = f"about {self.memory_mb:,.0f} MB of memory"
        if self.seconds is None or self.disk_bytes is None:
            return (
                f"{self.n_sessions:,} sessions; {mem}. Its time and disk depend on the LLM "
                "or HTTP roles (not sampled: that would spend money); budget_usd caps the cost."
            )
        reports = _duration_range(*(self.seconds * f for f in REPORTS_PER_PLAY))
        return (
            f"{self.n_sessions:,} sessions: about {_duration(self.seconds)} to play them "
            f"(from {self.sampled} of them played here, one at a time) and {reports} more "
            f"for the reports, {_size(self.disk_bytes)} of sessions.jsonl, and {mem}."
        )


async def estimate_run(plan: RunPlan, sample: int = 128) -> RunEstimate:
    """Estimate ``plan``'s pending sessions from ``sample`` of them played in memory."""
    pending = plan.pending
    n = len(pending)
    memory = MEMORY_BASE_MB + n * MEMORY_PER_SESSION_KB / 1024
    suite = plan.suite
    offline = (
        suite.simulator.kind == "scripted"
        and suite.target.kind in ("reference", "callable")
        and suite.judge is None
        and not plan.overrides.names()  # objects given from Python: their cost is unknown
    )
    if not offline or not pending:
        return RunEstimate(n, None, None, memory, 0)
    roles = build_roles(suite, plan.suite_dir)
    limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)
    # two samples spread at random over the run (sessions differ by persona, goal and
    # length): the first warms what a long run has warm (templates, the domains' data,
    # the roles' per-domain memos) and is not timed; the second is timed and measured
    picked = random.Random(0).sample(range(n), min(n, 2 * sample))
    warm, jobs = [pending[i] for i in picked[::2]], [pending[i] for i in picked[1::2]]
    if not jobs:
        warm, jobs = [], warm

    async def play(job: SessionJob) -> SessionRecord:
        return await run_session(
            job, roles.target, roles.simulator, limits,
            graders=roles.graders, grading=suite.grading, domains=roles.domains,
        )  # fmt: skip

    # a slow agent of the user's own (a Python target that waits on something) must not
    # make the question itself slow: each pass stops at its time, one session at least
    try:
        until = time.perf_counter() + WARM_UP_S
        for job in warm:
            if time.perf_counter() > until:
                break
            await play(job)
        size = played = 0
        started = time.perf_counter()
        for job in jobs:
            if played and time.perf_counter() - started > SAMPLE_S:
                break
            size += len(record_line(await play(job))) + 1
            played += 1
        per_session = (time.perf_counter() - started) / played
    finally:
        await roles.aclose()
    return RunEstimate(n, per_session * n, size * n // played, memory, played)


def _size(n: int) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.0f} MB"


def _duration_range(low: float, high: float) -> str:
    """``35-47 s``, ``6-7 min``, ``80 s-2 min``; one figure when both read the same."""
    a, b = _duration(low), _duration(high)
    if a == b:
        return a
    (a_n, a_unit), (_, b_unit) = a.split(), b.split()
    return f"{a_n}-{b}" if a_unit == b_unit else f"{a}-{b}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

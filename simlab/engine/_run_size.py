"""How long, how much disk and how much memory a large run will take, before it starts.

``simlab run --reps 10000`` plans 1.44 million sessions; a run that size should
be a decision, not a typo. The estimate comes from a quick measure: a few of
the run's own sessions played here, one at a time, without writing them, when
every role is offline (the scripted user and a simlab or Python target). A run
with an LLM or HTTP role is not sampled: that would spend money before anyone
said yes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from simlab.engine._roles import build_roles
from simlab.engine._run import RunPlan
from simlab.engine._session import SessionLimits, run_session

CONFIRM_ABOVE = 100_000
"""Sessions past which ``simlab run`` asks before starting (``--confirm-above``)."""

MEMORY_BASE_MB = 400
MEMORY_PER_SESSION_KB = 4
"""What a run holds: about 400 MB whatever its size (the process, the report's
viewer) and about 4 KB per session (measured by ``bench/run_memory.py``)."""


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
        return (
            f"{self.n_sessions:,} sessions: about {_duration(self.seconds)} and "
            f"{_size(self.disk_bytes)} of sessions.jsonl (from {self.sampled} of them "
            f"played here, one at a time), and {mem}."
        )


async def estimate_run(plan: RunPlan, sample: int = 8) -> RunEstimate:
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
    step = max(1, n // sample)  # spread over the run: sessions differ by persona and goal
    jobs = pending[::step][:sample]
    size = 0
    started = time.perf_counter()
    try:
        for job in jobs:
            record = await run_session(job, roles.target, roles.simulator, limits)
            size += len(record.model_dump_json()) + 1
    finally:
        await roles.aclose()
    per_session = (time.perf_counter() - started) / len(jobs)
    return RunEstimate(n, per_session * n, size * n // len(jobs), memory, len(jobs))


def _size(n: int) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.0f} MB"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

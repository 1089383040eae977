"""Where each graded session first failed, as a step, and the step x model matrix.

A *step* is an agent turn: step ``s`` is the agent's ``s``-th answer, and the
last step ``K+`` pools every turn from ``K`` on (few sessions run long, and a
model chosen for the tail answers all of it). A failed session's first failure
is the earliest turn any of its failed checks names (``Check.turn``), else its
last agent turn (a failure nothing located: the session ended wrong).

The matrix holds, for each model and step, the *first-failure rate*: of the
sessions on that model that reached the step without failing before it, the
share whose first failure is at it (a hazard), with its n and Wilson interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from simlab.stats import wilson_interval
from simlab.store import SessionRecord


@dataclass(frozen=True, slots=True)
class SessionPath:
    """One graded session as the matrix sees it.

    Attributes:
        turns: Agent turns the session had (at least 1).
        first_failure: The agent turn of its first failure; None when it passed.
    """

    turns: int
    first_failure: int | None


def session_path(record: SessionRecord) -> SessionPath:
    """The path of a graded record: its agent turns and the turn it first failed at."""
    answered = sum(1 for t in record.transcript.turns if t.agent is not None)
    # a slim record has no transcript, but its per-turn timings
    turns = max(1, answered if record.transcript.turns else len(record.agent_turn_s))
    if record.passed:
        return SessionPath(turns, None)
    located = [c.turn for c in record.checks.values() if not c.passed and c.turn is not None]
    first = min(located) if located else turns
    return SessionPath(turns, min(max(first, 1), turns))


def step_of(turn: int, steps: int) -> int:
    """The step (1..``steps``) of an agent turn: turns from ``steps`` on share the last."""
    return min(turn, steps)


@dataclass(frozen=True, slots=True)
class Hazard:
    """A model's first-failure rate at one step."""

    failed: int
    n: int
    ci: tuple[float, float]

    @property
    def rate(self) -> float | None:
        """``failed / n``; None when no session reached the step."""
        return self.failed / self.n if self.n else None


def hazards(paths: Iterable[SessionPath], steps: int, level: float = 0.95) -> list[Hazard]:
    """Each step's first-failure rate over ``paths`` (index 0 is step 1).

    A session is at risk at step ``s`` when it reached ``s`` (its turns) and had not
    failed before; at the last step, at risk once it reaches it, failed if its first
    failure is there or later.
    """
    at_risk = [0] * steps
    failed = [0] * steps
    for p in paths:
        last = step_of(p.turns, steps)
        stop = last if p.first_failure is None else step_of(p.first_failure, steps)
        for s in range(1, stop + 1):
            at_risk[s - 1] += 1
        if p.first_failure is not None:
            failed[stop - 1] += 1
    return [
        Hazard(f, n, wilson_interval(f, n, level)) for f, n in zip(failed, at_risk, strict=True)
    ]


def default_steps(runs: Sequence[Sequence[SessionPath]], min_sessions: int = 5) -> int:
    """The most steps every run has data for: the largest ``K`` such that each run has
    at least ``min_sessions`` sessions (or all of them, if fewer) reaching turn ``K``."""
    k = 1
    while True:
        nxt = k + 1
        for paths in runs:
            need = min(min_sessions, len(paths))
            if need == 0 or sum(1 for p in paths if p.turns >= nxt) < need:
                return k
        k = nxt

"""Builders of small run directories for the comparison tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from simlab.core import Check, SessionKey
from simlab.store import SessionRecord, SessionWriter, StopReason, write_json

RecordFn = Callable[..., SessionRecord]
RunFn = Callable[[Path, Iterable[SessionRecord]], Path]


def make_record(
    persona: str = "p",
    goal: str = "g",
    rep: int = 0,
    turns: int = 3,
    passed: bool = True,
    *,
    mode: str = "sharded",
    score: float | None = None,
    checks: dict[str, bool] | None = None,
    error: str | None = None,
    planned: int | None = -1,
) -> SessionRecord:
    """One session record; ``error`` makes it an error session (no pass, no score).

    Its planned length (the one buckets use) is ``turns`` unless ``planned`` is
    given (None: a record without a plan).
    """
    key = SessionKey(persona=persona, goal=goal, mode=mode, rep=rep)
    planned_turns = turns if planned == -1 else planned
    if error is not None:
        return SessionRecord(
            key=key,
            seed=rep,
            status="error",
            stop_reason=StopReason.AGENT_ERROR,
            n_user_turns=turns,
            planned_turns=planned_turns,
            error=error,
        )
    return SessionRecord(
        key=key,
        seed=rep,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED if passed else StopReason.MAX_TURNS,
        n_user_turns=turns,
        planned_turns=planned_turns,
        score=(100.0 if passed else 0.0) if score is None else score,
        passed=passed,
        checks={n: Check(passed=ok, detail=f"{n} detail") for n, ok in (checks or {}).items()},
    )


def write_run(
    run_dir: Path, records: Iterable[SessionRecord], buckets: list[str] | None = None
) -> Path:
    """A run directory with ``run.json`` (the suite's buckets) and ``sessions.jsonl``."""
    run_dir.mkdir(parents=True)
    write_json(
        run_dir / "run.json",
        {
            "schema_version": 1,
            "run_id": run_dir.name,
            "suite": {"buckets": [_bucket(b) for b in buckets or ["2-4", "5-9", "10+"]]},
        },
    )
    with SessionWriter(run_dir) as w:
        for r in records:
            w.append(r)
    return run_dir


def _bucket(name: str) -> dict[str, object]:
    if name.endswith("+"):
        return {"name": name, "min": int(name[:-1]), "max": None}
    lo, hi = name.split("-")
    return {"name": name, "min": int(lo), "max": int(hi)}


@pytest.fixture
def record() -> RecordFn:
    return make_record


@pytest.fixture
def run() -> Callable[..., Path]:
    return write_run

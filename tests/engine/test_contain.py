"""The net under one session: what it raises, or a record that cannot be written,
becomes that session's error record."""

from __future__ import annotations

from pathlib import Path

import anyio

from simlab.engine import expand
from simlab.engine._contain import contained, written
from simlab.engine._expand import SessionJob
from simlab.spec import Suite, load_goals, load_personas
from simlab.store import SessionRecord, StopReason

ROOT = Path(__file__).resolve().parents[2]


def a_job() -> SessionJob:
    suite = Suite(personas=["terse_en"], goals=["refund"], modes=["full"], reps=1)
    personas = load_personas([ROOT / "personas"])
    goals = load_goals([ROOT / "goals"])
    return expand(suite, personas, goals)[0]


def test_a_session_that_raises_is_its_error_record_not_the_runs_end() -> None:
    job = a_job()

    @contained
    async def runner(job: SessionJob) -> SessionRecord:
        raise RecursionError("maximum recursion depth exceeded \udcff")

    record = anyio.run(runner, job)
    assert record.key == job.key and record.status == "error"
    assert record.stop_reason == StopReason.INFRA_ERROR
    assert record.error is not None and record.error.type == "RecursionError"
    assert record.error.message == (
        "the session could not be finished: maximum recursion depth exceeded \\udcff"
    )
    written(record)  # its own text is escaped: it can always be written


def test_a_record_that_cannot_be_serialised_is_replaced_by_its_error_record() -> None:
    job = a_job()
    good = SessionRecord(
        key=job.key, seed=job.seed, status="ok", stop_reason="max_turns", n_user_turns=2,
        score=50.0, passed=False, meta={"handle": object()},  # no JSON for it
    )  # fmt: skip
    kept, line = written(good)
    assert kept.status == "error" and kept.key == good.key and kept.seed == good.seed
    assert kept.error is not None and "could not write this session's record" in kept.error.message
    assert SessionRecord.model_validate_json(line) == kept


def test_a_writable_record_is_written_as_it_is() -> None:
    job = a_job()
    good = SessionRecord(
        key=job.key, seed=job.seed, status="ok", stop_reason="max_turns", n_user_turns=2
    )
    kept, line = written(good)
    assert kept is good and SessionRecord.model_validate_json(line) == good

"""The judge inside a real session: its check lands in the record; its failure is a grader error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from simlab.core import SessionKey
from simlab.engine import (
    SessionJob,
    SessionLimits,
    run_session,
    session_seed,
    simulator_factory,
    target_factory,
)
from simlab.graders import DEFAULT_RUBRIC, JUDGE, LLMJudge, rubric_criteria
from simlab.llm import LLMSpec, create_llm, zero_retry_waits
from simlab.spec import Mode, Suite, load_goals, load_personas
from simlab.store import SessionRecord
from simlab.testing import FakeProvider, scripted

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with zero_retry_waits():
        yield


async def _session(reply: str) -> tuple[SessionRecord, FakeProvider]:
    persona = load_personas([ROOT / "personas"])["terse_en"]
    goal = load_goals([ROOT / "goals"])["one_way"]
    key = SessionKey(persona=persona.id, goal=goal.id, mode="sharded", rep=0)
    job = SessionJob(key, session_seed(0, key), persona, goal, Mode.SHARDED)
    suite = Suite()
    fake = FakeProvider(responder=scripted([reply]))
    async with fake.serve() as base_url:
        llm = create_llm(LLMSpec(backend="openai", base_url=base_url, model="j"))
        try:
            record = await run_session(
                job,
                target_factory(suite),
                simulator_factory(suite),
                SessionLimits(max_turns=20, turn_timeout_s=10),
                judge=LLMJudge(llm, max_attempts=2),
            )
        finally:
            await llm.aclose()
    return record, fake


async def test_judge_check_and_usage_land_in_the_record() -> None:
    criteria = {c.id: True for c in rubric_criteria(DEFAULT_RUBRIC.read_text(encoding="utf-8"))}
    criteria["confirmed"] = None  # may not apply: answered null, the verdict still passes
    reply = json.dumps({"reasoning": "Fine.", "criteria": criteria, "first_failing_turn": None})
    record, fake = await _session(reply)
    assert record.status == "ok"
    assert record.checks[JUDGE].passed and record.checks[JUDGE].detail == "Fine."
    assert record.checks[JUDGE].criteria == criteria
    # The record's line carries the criteria; the code graders' checks carry none.
    line = json.loads(record.model_dump_json())
    assert line["checks"][JUDGE]["criteria"] == criteria
    assert all("criteria" not in c for name, c in line["checks"].items() if name != JUDGE)
    assert record.usage.calls == 1 == len(fake.requests)
    assert record.meta["llm"]["judge"]["calls"] == 1
    # The judge was handed the session's own transcript, numbered by turn.
    assert f"[T{record.n_user_turns}] USER (closing message" in fake.requests[0].last_user_text


async def test_unusable_judge_output_is_a_grader_error_not_a_failure() -> None:
    record, fake = await _session("not JSON")
    assert record.status == "ok" and record.passed is not None  # code graders still graded it
    assert JUDGE not in record.checks
    assert "JudgeError" in record.meta["grader_error"]
    assert record.meta["llm"]["judge"]["calls"] == 2 == len(fake.requests)
